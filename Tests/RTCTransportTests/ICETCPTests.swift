import TestWait
import Testing
import Foundation
import RTCNet
import RTCWire
@testable import RTCTransport
import TestRandom

/// ICE over TCP (RFC 6544) with RFC 4571 framing: a client transport that opens an active TCP
/// connection to the media port's passive candidate, and the port's handling of streams.
@Suite(.serialized) struct ICETCPTests {
    typealias Peers = LoopbackPeers

    /// The transport's selected ICE-TCP connection, read on its I/O thread.
    static func stream(of transport: PeerTransport) async -> ICETCPConnection? {
        await withCheckedContinuation { c in transport.execute { c.resume(returning: $0.selectedStream) } }
    }

    @Test func aClientReachesThePassiveTCPCandidateAndSRTPFlowsBothWaysOverTheStream() async throws {
        let peers = try Peers(candidates: { [ICECandidate.passiveTCP(address: $0.tcpAddress!)] })
        defer { peers.shutdown() }
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        let serverStream = await Self.stream(of: peers.server), clientStream = await Self.stream(of: peers.client)
        #expect(serverStream != nil && clientStream != nil)
        #expect(clientStream?.remoteAddress == peers.port.tcpAddress)
        #expect(peers.server.remoteAddress == serverStream?.remoteAddress)

        // Packets of many sizes, so frames straddle reads: all arrive, in order, intact.
        let packets = (0..<200).map { SRTPTests.rtp(seq: UInt16($0), ssrc: 0x4444, payloadLength: 1 + ($0 * 37) % 1100) }
        peers.client.execute { t in
            for p in packets { p.withUnsafeBytes { _ = t.sendRTP($0) } }
            SRTPTests.rtcp.withUnsafeBytes { _ = t.sendRTCP($0) }
        }
        #expect(await peers.serverDelegate.waitFor { $0.rtp.count == 200 && $0.rtcp.count == 1 })
        #expect(peers.serverDelegate.log.withLock { $0.rtp } == packets)
        let back = (0..<10).map { SRTPTests.rtp(seq: UInt16(50 + $0), ssrc: 0x5555) }
        peers.server.execute { t in for p in back { p.withUnsafeBytes { _ = t.sendRTP($0) } } }
        #expect(await peers.clientDelegate.waitFor { $0.rtp.count == 10 })
        #expect(peers.clientDelegate.log.withLock { $0.rtp } == back)
    }

    @Test func dataChannelsRunOverTheICETCPStreamToo() async throws {
        let peers = try Peers(sctp: SCTPParameters(), candidates: { [ICECandidate.passiveTCP(address: $0.tcpAddress!)] })
        defer { peers.shutdown() }
        let id = await withCheckedContinuation { c in peers.client.execute { c.resume(returning: $0.openDataChannel(label: "chat")) } }
        #expect(id != nil)
        #expect(await peers.serverDelegate.waitFor { log in log.dataChannel.contains { if case .opened = $0 { true } else { false } } })
        let message = Array("over tcp".utf8)
        peers.client.execute { t in message.withUnsafeBytes { try? t.sendData($0, on: id!) } }
        #expect(await peers.serverDelegate.waitFor { log in
            log.dataChannel.contains { if case .message(_, let bytes, _) = $0 { bytes == message } else { false } }
        })
    }

    @Test func udpIsChosenWhenBothWorkAndTCPWhenTheUDPCandidateIsDead() async throws {
        let both = try Peers(candidates: { [ICECandidate(address: $0.localAddress), .passiveTCP(address: $0.tcpAddress!)] })
        #expect(await both.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await Self.stream(of: both.client) == nil)
        #expect(both.client.remoteAddress == both.port.localAddress)
        both.shutdown()

        // A UDP candidate nobody answers on (a socket that reads nothing): only TCP can work.
        let silent = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { silent.close() }
        let tcpOnly = try Peers(candidates: { [ICECandidate(address: silent.localAddress), .passiveTCP(address: $0.tcpAddress!)] })
        defer { tcpOnly.shutdown() }
        #expect(await tcpOnly.clientDelegate.waitFor { $0.states.last == .connected })
        #expect(await Self.stream(of: tcpOnly.client)?.remoteAddress == tcpOnly.port.tcpAddress)
    }

    @Test func garbageOnATCPConnectionIsDroppedAndThePortKeepsServing() async throws {
        let peers = try Peers(candidates: { [ICECandidate.passiveTCP(address: $0.tcpAddress!)] })
        defer { peers.shutdown() }
        // Strangers: random bytes (seeded) and a zero-length frame, which breaks RFC 4571 framing.
        var random = SeededRandom(seed: 4571)
        var strangers: [TCPSocket] = []
        for round in 0..<8 {
            let (socket, _) = try TCPSocket.connect(to: peers.port.tcpAddress!)
            let bytes: [UInt8] = round == 0 ? [0, 0, 1, 2] : (0..<Int.random(in: 1...3000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            try await eventually("stranger \(round) wrote") { bytes.withUnsafeBytes { if case .processed = socket.write($0) { true } else { false } } }
            strangers.append(socket)
        }
        // The real client still connects and its media flows.
        #expect(await peers.clientDelegate.waitFor { $0.states.last == .connected })
        let packet = SRTPTests.rtp(seq: 9, ssrc: 0x6666)
        peers.client.execute { t in packet.withUnsafeBytes { _ = t.sendRTP($0) } }
        #expect(await peers.serverDelegate.waitFor { $0.rtp == [packet] })
        // The zero-length frame closed its connection (the stranger reads end of stream).
        var buffer = [UInt8](repeating: 0, count: 16)
        try await eventually("the port closed the connection with an empty frame") {
            buffer.withUnsafeMutableBytes { strangers[0].read(into: $0) } == .endOfStream
        }
        for s in strangers { s.close() }
    }

    @Test func tcpCandidatesRoundTripThroughSDPWithTheirTCPType() throws {
        let active = try ICECandidate(sdpAttribute: "a=candidate:3 1 tcp 1518280447 192.0.2.9 9 typ host tcptype active")
        #expect(active.tcpType == .active && active.address.port == 9 && active.isTCP)
        let passive = ICECandidate.passiveTCP(address: SocketAddress(ip: "127.0.0.1", port: 7882)!)
        #expect(passive.sdpAttribute == "candidate:2 1 tcp 1520435199 127.0.0.1 7882 typ host tcptype passive")
        #expect(try ICECandidate(sdpAttribute: passive.sdpAttribute) == passive)
        // Below every UDP host candidate, so a peer that has both prefers UDP (RFC 6544 §4.2).
        #expect(passive.priority < ICECandidate(address: SocketAddress(ip: "127.0.0.1", port: 1)!).priority)
        #expect(throws: ICEError.self) { try ICECandidate(sdpAttribute: "candidate:1 1 tcp 1 1.2.3.4 9 typ host tcptype sideways") }
    }
}
