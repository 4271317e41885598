import Foundation
import RTCMedia
import RTCNet
import RTCWire
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Synchronization
import Testing
import TestWait

/// A channel larger than a node (docs/deploy.md, "Channels larger than a node"): past
/// `--node-channel-subscribers` on the channel's node, the nodes that relay sessions serve their
/// subscriptions, receiving each track once from the channel's node over a DTLS-SRTP transport.
@Suite struct ClusterEdgeTests {
    static let video = MediaTestClient.VideoLayer(rid: "l", desc: TrackDescName.cameraSmall, ssrc: 0x0ED6_E001, width: 320, height: 180)

    /// Subscribers per relaying node: enough to show one relayed stream fanned out to several
    /// subscribers on each node, few enough for seconds of runtime (each test client runs its
    /// own UDP thread; issue 12 asks for 30).
    static let subscribersPerNode = 15

    @Test func subscribersOnTwoRelayingNodesDecodeThePublishersFramesAndANackOnTheThirdIsServed() async throws {
        let url = try await TestRedis.freshURL()
        let nodes = try ["a", "b", "c"].map { id in
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1; $0.limits.joinsPerSecond = 100; $0.limits.addressJoinsPerSecond = 100 }
        }
        let (a, b, c) = (nodes[0], nodes[1], nodes[2])
        // All idle: the channel goes to "a" (ties broken by id); alice publishes there directly.
        let alice = try await MediaTestClient(server: a, uid: "alice", channel: "big")
        let tracks = try await alice.publish(audioSSRC: 0xA11C_E001, video: [Self.video])
        let audio = try #require(tracks.first { $0.kind == .audio })
        let video = try #require(tracks.first { $0.kind == .video })

        var subscribers: [(client: MediaTestClient, node: TestServer)] = []
        for (node, name) in [(b, "b"), (c, "c")] {
            for i in 0..<Self.subscribersPerNode {
                let client = try await MediaTestClient(server: node, uid: "\(name)\(i)", channel: "big")
                subscribers.append((client, node))
            }
        }
        // One subscriber on c loses the 30th video packet on its way from c.
        let lossy = try #require(subscribers.last { $0.node === c }?.client)
        let relay = try LossyRelay(server: try #require(SocketAddress(ip: "127.0.0.1", port: c.channelUDPPort)))
        defer { relay.stop() }
        lossy.subscribeRelay = relay
        for (client, _) in subscribers {
            // Everyone sees one channel: alice and her tracks, whichever node they reached.
            #expect(client.joined.users.first { $0.uid == "alice" }?.tracks.map(\.id).sorted() == [audio.id, video.id].sorted())
            try await client.subscribe(video.id)
            try await client.subscribe(audio.id)
        }
        // Their subscriptions are served by the node they reached, which relays the channel once.
        for (client, node) in subscribers {
            let ports = try #require(client.latestOffer).media.flatMap(\.candidates).map(\.port)
            #expect(!ports.isEmpty && ports.allSatisfy { $0 == node.channelUDPPort }, "\(client.uid) offered \(ports)")
        }
        #expect(b.app.edges.count == 1 && c.app.edges.count == 1 && a.app.edges.count == 0)

        let lossySSRC = try #require(lossy.announcedSSRC(of: video.id))
        let counter = Atomic<Int>(0)
        relay.drop.set { bytes in
            LossyRelay.rtpHeader(bytes)?.ssrc == lossySSRC && counter.add(1, ordering: .relaxed).newValue == 30
        }
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: 0xA11C_E001, video: [Self.video])
        try await publisher.run(seconds: 2)
        try await lossy.waitForMediaToSettle()

        // The lost packet is retransmitted by c when the subscriber asks (from c's packet cache,
        // within its 3 s).
        let endpoint = try #require(lossy.subscribeEndpoint)
        let datagram = try #require(relay.dropped.withLock { $0.first })
        let lost = try #require(datagram.withUnsafeBytes { LossyRelay.rtpHeader($0) }).seq
        #expect(!endpoint.packets(ssrc: lossySSRC).contains { $0.sequenceNumber == lost })
        endpoint.send(rtcp: [.nack(TransportLayerNack(senderSSRC: 0x5EED, mediaSSRC: lossySSRC, lost: [lost]))])
        #expect(await endpoint.waitFor { log in log.rtp.contains { $0.ssrc == lossySSRC && $0.sequenceNumber == lost } })

        for (client, _) in subscribers { try await client.waitForMediaToSettle() }
        // Every subscriber decodes the publisher's frames in order, and hears the tone.
        for (client, _) in subscribers {
            let ssrc = try #require(client.announcedSSRC(of: video.id))
            let packets = try #require(client.subscribeEndpoint?.packets(ssrc: ssrc))
                .sorted { SequenceNumber.distance(from: $1.sequenceNumber, to: $0.sequenceNumber) < 0 }
            let numbers = try Self.decode(packets)
            #expect(numbers.count > 20 && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 },
                    "\(client.uid) decoded \(numbers)")
            let audioSSRC = try #require(client.announcedSSRC(of: audio.id))
            let audioPackets = try #require(client.subscribeEndpoint?.packets(ssrc: audioSSRC))
            #expect(audioPackets.count > 40, "\(client.uid) got \(audioPackets.count) audio packets")
            var samples: [Float] = []
            let opus = try OpusDecoder()
            for p in audioPackets.dropFirst(10).prefix(30) { samples += try opus.decode(p.payload).floatSamples }
            let hz = try #require(FrequencyEstimator.zeroCrossingFrequency(samples, sampleRate: 48_000))
            #expect(abs(hz - 440) < 10, "\(client.uid) heard \(hz) Hz")
        }

        // A subscriber leaving is seen on every node; the channel ending ends the relays.
        #expect(try await subscribers[0].client.signal.request(.leave).isSuccess)
        let left = try await lossy.signal.event { if case .userLeft(let u) = $0 { return u.uid }; return nil }
        #expect(left == subscribers[0].client.uid)
        #expect(try await a.call("/server/v1/channel/close", ["channel": "big"]).0 == 200)
        try await eventually(timeout: 10, "the relays closed") { b.app.edges.count == 0 && c.app.edges.count == 0 }
        alice.close()
        for (client, _) in subscribers { client.close() }
        for node in nodes.reversed() { await node.stop() }
    }

    /// A session a relaying node serves gets its data channel there, and on it the events a
    /// session of the channel's node gets on its own: the channel's speakers, the layer switches
    /// of its subscription (the relay's, which its layer request moved) and its subscribe
    /// transport's quality reports (made on the relaying node).
    @Test func aSessionARelayingNodeServesGetsItsEventsOnItsDataChannel() async throws {
        let url = try await TestRedis.freshURL()
        let nodes = try ["a", "b"].map { id in
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1; $0.media.qualityIntervalSeconds = 0.5 }
        }
        let (a, b) = (nodes[0], nodes[1])
        let layers = [MediaTestClient.VideoLayer(rid: "h", desc: TrackDescName.cameraBig, ssrc: 0x0ED6_E101, width: 640, height: 360),
                      MediaTestClient.VideoLayer(rid: "l", desc: TrackDescName.cameraSmall, ssrc: 0x0ED6_E102, width: 320, height: 180)]
        let alice = try await MediaTestClient(server: a, uid: "alice", channel: "events")
        let tracks = try await alice.publish(audioSSRC: 0xA11C_E101, video: layers)
        let audio = try #require(tracks.first { $0.kind == .audio })
        let video = try #require(tracks.first { $0.kind == .video })
        let bob = try await MediaTestClient(server: b, uid: "bob", channel: "events", dataChannels: true)
        let endpoint = try await waitFor("bob's subscribe transport") { bob.subscribeEndpoint }
        let ports = try #require(bob.latestOffer).media.flatMap(\.candidates).map(\.port)
        #expect(!ports.isEmpty && ports.allSatisfy { $0 == b.channelUDPPort }, "bob's transport is on b: \(ports)")
        try await eventually("bob's data channel open on b") {
            endpoint.log.withLock { $0.dataChannel }.contains { if case .opened(let info) = $0 { info.id == SignalDataChannel.reliableID } else { false } }
        }
        try await bob.subscribe(audio.id)
        try await bob.subscribe(video.id, layer: TrackDescName.cameraSmall)
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: 0xA11C_E101, video: layers)
        publisher.audioLevel = 10
        try await publisher.run(seconds: 1.5)
        #expect(try await bob.signal.request(.setLayer(SubscribeRequest(trackId: video.id, layer: TrackDescName.cameraBig))) == .success(.empty))
        try await publisher.run(seconds: 1.5)

        try await eventually("speakers, bob's quality and the switch to camera_big on bob's data channel") {
            let events = bob.dataChannelEvents
            return RelayEvents.speakers(events).contains(["alice"]) && RelayEvents.switches(events, trackId: video.id, publisher: "alice").contains(TrackDescName.cameraBig)
                && events.contains { if case .qualityReport(let r) = $0 { r.uid == "bob" && r.downstream.packets > 0 } else { false } }
        }
        #expect(bob.dataChannelEvents.allSatisfy { $0.travelsOnDataChannel })
        // Sent there instead of the WebSocket, not as well (the channel opened before alice spoke).
        #expect(RelayEvents.speakers(bob.signal.events).isEmpty && RelayEvents.switches(bob.signal.events, trackId: video.id, publisher: "alice").isEmpty)
        alice.close()
        bob.close()
        for node in nodes.reversed() { await node.stop() }
    }

    /// The channel's node leaves the cluster without closing its relays (a crash: `kill -9`
    /// sends nothing; here its registry entry is withdrawn while it still runs): the relaying
    /// node closes its relay of that channel once the registry no longer lists the node, instead
    /// of keeping its router, uplink and the sessions' subscribe sides until it stops itself.
    @Test func aRelayOfANodeThatLeftTheClusterIsClosed() async throws {
        let url = try await TestRedis.freshURL()
        let nodes = try ["a", "b"].map { id in
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1 }
        }
        let (a, b) = (nodes[0], nodes[1])
        let alice = try await MediaTestClient(server: a, uid: "alice", channel: "orphan")
        let tracks = try await alice.publish(audioSSRC: 0xA11C_E201, video: [Self.video])
        let bob = try await MediaTestClient(server: b, uid: "bob", channel: "orphan")
        try await bob.subscribe(try #require(tracks.first { $0.kind == .audio }).id)
        #expect(b.app.edges.count == 1)
        // Still listed: a sweep closes nothing.
        #expect(await b.app.edges.closeOrphans() == 0 && b.app.edges.count == 1)
        a.app.cluster?.stop()
        try await eventually("b's relay of a's channel closed") { b.app.edges.count == 0 }
        alice.close()
        bob.close()
        for node in nodes.reversed() { await node.stop() }
    }

    /// The relaying node loses the relay while the channel's node still has it (it closed it,
    /// taking that node for dead; or it restarted under the same node id, at another address
    /// here): the next subscription through it opens the relay again, and its subscriber receives
    /// the publisher's packets. Before, the channel's node kept using its relay until the channel
    /// closed, and every such subscription failed (`not_found`, or a node no longer there).
    @Test func aRelayTheRelayingNodeLostIsOpenedAgain() async throws {
        let url = try await TestRedis.freshURL()
        func node(_ id: String) throws -> TestServer {
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1 }
        }
        let a = try node("a")
        var b = try node("b")
        let alice = try await MediaTestClient(server: a, uid: "alice", channel: "again")
        let audio = try #require(try await alice.publish(audioSSRC: 0xA11C_E301, video: []).first)
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: 0xA11C_E301, video: [])
        func receives(_ uid: String, on server: TestServer) async throws -> MediaTestClient {
            let client = try await MediaTestClient(server: server, uid: uid, channel: "again")
            try await client.subscribe(audio.id)
            let ports = try #require(client.latestOffer).media.flatMap(\.candidates).map(\.port)
            #expect(!ports.isEmpty && ports.allSatisfy { $0 == server.channelUDPPort }, "\(uid) is served by its node: \(ports)")
            let ssrc = try #require(client.announcedSSRC(of: audio.id))
            try await publisher.run(seconds: 1, video: false)
            try await eventually("\(uid) receives alice's audio") { (client.subscribeEndpoint?.packets(ssrc: ssrc).count ?? 0) >= 10 }
            return client
        }
        let bob = try await receives("bob", on: b)
        #expect(b.app.edges.count == 1)

        // b forgets the relay; a still has it.
        await b.app.edges.closeAll()
        let carol = try await receives("carol", on: b)
        #expect(b.app.edges.count == 1)

        // b restarts under the same id, on other ports.
        for client in [bob, carol] { client.close() }
        await b.stop()
        b = try node("b")
        let dave = try await receives("dave", on: b)
        #expect(b.app.edges.count == 1)
        for client in [alice, dave] { client.close() }
        await b.stop()
        await a.stop()
    }

    /// Decodes VP8 packets; the test pattern's frame number of each decoded frame.
    static func decode(_ packets: [RTPPacket]) throws -> [Int] {
        var assembler = VP8FrameAssembler()
        let decoder = try VP8Decoder()
        var numbers: [Int] = []
        for p in packets {
            let output = try assembler.push(payload: p.payload, sequenceNumber: p.sequenceNumber, timestamp: p.timestamp, marker: p.marker)
            guard let frame = output.frame, let decoded = try decoder.decode(frame.encodedFrame),
                  let number = TestPatternReader.frameNumber(in: decoded) else { continue }
            numbers.append(number)
        }
        return numbers
    }
}
