import Testing
import RTCNet
import RTCWire
@testable import RTCTransport

/// Data channels over real usrsctp associations inside real DTLS between a server transport on a
/// `MediaPort` and a client transport, over loopback UDP.
@Suite(.serialized) struct DataChannelTests {
    private static func opened(_ log: RecordingDelegate.Log) -> [DataChannelInfo] {
        log.dataChannel.compactMap { if case .opened(let info) = $0 { info } else { nil } }
    }

    private static func messages(_ log: RecordingDelegate.Log, on id: UInt16) -> [[UInt8]] {
        log.dataChannel.compactMap { if case .message(id, let data, _) = $0 { data } else { nil } }
    }

    @Test func dcepOpenAckThenOrderedReliableMessagesBothWays() async throws {
        let peers = try LoopbackPeers(sctp: SCTPParameters(remoteMaxMessageSize: 262_144))
        defer { peers.shutdown() }
        // Opened before DTLS is up: the open waits for the association.
        peers.client.execute { t in _ = t.openDataChannel(label: "chat", protocol: "srtc") }
        #expect(await peers.serverDelegate.waitFor { Self.opened($0).count == 1 })
        #expect(await peers.clientDelegate.waitFor { Self.opened($0).count == 1 })
        let seen = try #require(Self.opened(peers.serverDelegate.log.withLock { $0 }).first)
        // The DTLS client takes even stream ids (RFC 8832 §6).
        #expect(seen == DataChannelInfo(id: 0, label: "chat", protocol: "srtc", reliability: .reliable))

        let sent = (0..<200).map { i in [UInt8]("message \(i)".utf8) }
        peers.client.execute { t in for m in sent { m.withUnsafeBytes { try? t.sendData($0, on: 0, binary: false) } } }
        #expect(await peers.serverDelegate.waitFor { Self.messages($0, on: 0).count == 200 })
        #expect(Self.messages(peers.serverDelegate.log.withLock { $0 }, on: 0) == sent)

        // The server answers on the same channel; a message larger than one SCTP packet is
        // fragmented and reassembled, and an empty one arrives empty.
        let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        peers.server.execute { t in
            large.withUnsafeBytes { try? t.sendData($0, on: 0) }
            [UInt8]().withUnsafeBytes { try? t.sendData($0, on: 0) }
        }
        #expect(await peers.clientDelegate.waitFor { Self.messages($0, on: 0).count == 2 })
        #expect(Self.messages(peers.clientDelegate.log.withLock { $0 }, on: 0) == [large, []])
    }

    @Test func serverOpensOnOddStreamsAndClosingResetsTheStream() async throws {
        let peers = try LoopbackPeers(sctp: SCTPParameters())
        defer { peers.shutdown() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        peers.server.execute { t in
            _ = t.openDataChannel(label: "events")
            _ = t.openDataChannel(label: "lossy", reliability: .lossy)
        }
        #expect(await peers.clientDelegate.waitFor { Self.opened($0).count == 2 })
        let infos = Self.opened(peers.clientDelegate.log.withLock { $0 }).sorted { $0.id < $1.id }
        #expect(infos.map(\.id) == [1, 3])
        #expect(infos.map(\.label) == ["events", "lossy"])
        #expect(infos[1].reliability == DataChannelReliability(ordered: false, limit: .maxRetransmits(0)))

        peers.client.execute { t in t.dataChannels?.close(id: 1) }
        #expect(await peers.serverDelegate.waitFor { $0.dataChannel.contains(.closed(id: 1)) })
        #expect(await peers.clientDelegate.waitFor { $0.dataChannel.contains(.closed(id: 1)) })
        // The other channel still works.
        peers.server.execute { t in [UInt8]("still here".utf8).withUnsafeBytes { try? t.sendData($0, on: 3, binary: false) } }
        #expect(await peers.clientDelegate.waitFor { Self.messages($0, on: 3) == [Array("still here".utf8)] })
    }

    @Test func negotiatedChannelsNeedNoDCEPAndUnknownStreamsAreDropped() async throws {
        let peers = try LoopbackPeers(sctp: SCTPParameters())
        defer { peers.shutdown() }
        peers.client.execute { t in _ = t.openDataChannel(label: "n", negotiatedID: 10) }
        peers.server.execute { t in _ = t.openDataChannel(label: "n", negotiatedID: 10) }
        #expect(await peers.clientDelegate.waitFor { Self.opened($0).count == 1 })
        #expect(await peers.serverDelegate.waitFor { Self.opened($0).count == 1 })
        peers.client.execute { t in
            [UInt8]("hello".utf8).withUnsafeBytes { try? t.sendData($0, on: 10) }
            // Stream 12 has no channel on the server: the association carries it, the endpoint drops it.
            [UInt8]("nobody".utf8).withUnsafeBytes { raw in
                _ = try? t.dataChannels?.association.send(raw, stream: 12, ppid: DataChannelPPID.binary)
            }
            [UInt8]("after".utf8).withUnsafeBytes { try? t.sendData($0, on: 10) }
        }
        #expect(await peers.serverDelegate.waitFor { Self.messages($0, on: 10).count == 2 })
        #expect(Self.messages(peers.serverDelegate.log.withLock { $0 }, on: 10) == [Array("hello".utf8), Array("after".utf8)])
        let dropped = await withCheckedContinuation { continuation in
            peers.server.execute { t in continuation.resume(returning: t.dataChannels?.stats.dropped ?? -1) }
        }
        #expect(dropped == 1)
    }

    @Test func sendingAboveThePeersMaximumIsRefused() async throws {
        let peers = try LoopbackPeers(sctp: SCTPParameters(remoteMaxMessageSize: 1000))
        defer { peers.shutdown() }
        peers.client.execute { t in _ = t.openDataChannel(label: "small") }
        #expect(await peers.clientDelegate.waitFor { Self.opened($0).count == 1 })
        let result = await withCheckedContinuation { continuation in
            peers.client.execute { t in
                let bytes = [UInt8](repeating: 7, count: 1001)
                continuation.resume(returning: bytes.withUnsafeBytes { raw in Result { () throws(SCTPError) in try t.sendData(raw, on: 0) } })
            }
        }
        #expect(throws: SCTPError.messageTooLarge(size: 1001, limit: 1000)) { try result.get() }
    }

    /// A hundred lossy messages sent at once (one round of I/O-thread work, as the SDK's
    /// `publishData` calls arrive) all arrive over loopback: each SCTP packet the burst makes is
    /// sent, none is dropped by a full send queue. Lossy messages are never retransmitted, so a
    /// dropped datagram was a lost message (30 to 44 of 50 echoes reached a browser).
    @Test func aBurstOfLossyMessagesIsNotDroppedOnTheWayOut() async throws {
        let peers = try LoopbackPeers(sctp: SCTPParameters())
        defer { peers.shutdown() }
        peers.client.execute { t in _ = t.openDataChannel(label: "lossy", reliability: .lossy, negotiatedID: 1) }
        peers.server.execute { t in _ = t.openDataChannel(label: "lossy", reliability: .lossy, negotiatedID: 1) }
        #expect(await peers.clientDelegate.waitFor { Self.opened($0).count == 1 })
        #expect(await peers.serverDelegate.waitFor { Self.opened($0).count == 1 })
        let sent = (0..<100).map { i in [UInt8]("lossy \(i)".utf8) }
        peers.client.execute { t in for m in sent { m.withUnsafeBytes { try? t.sendData($0, on: 1) } } }
        #expect(await peers.serverDelegate.waitFor { Self.messages($0, on: 1).count == 100 })
        let received = Self.messages(peers.serverDelegate.log.withLock { $0 }, on: 1).map { String(decoding: $0, as: UTF8.self) }
        #expect(Set(received) == Set(sent.map { String(decoding: $0, as: UTF8.self) }))
    }
}
