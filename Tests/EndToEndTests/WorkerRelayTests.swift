import Foundation
import RTCMedia
import RTCNet
import RTCWire
@testable import SRTCCore
import SRTCLab
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Synchronization
import Testing
import TestWait

/// A channel larger than a worker (docs/architecture.md, "A channel larger than a worker"): past
/// `--worker-subscriber-budget` on the channel's worker, new participants' subscriptions are
/// served by another worker, which receives each track once from the channel's worker through
/// an in-process pipe and fans it out; their feedback travels back upstream, and they get the
/// channel's events as the channel's worker's participants do.
@Suite(.serialized) struct WorkerRelayTests {
    static let layers = [MediaTestClient.VideoLayer(rid: "h", desc: TrackDescName.cameraBig, ssrc: 0x0F1B_E001, width: 640, height: 360),
                         MediaTestClient.VideoLayer(rid: "l", desc: TrackDescName.cameraSmall, ssrc: 0x0F1B_E002, width: 320, height: 180)]
    static let audioSSRC: UInt32 = 0xA11C_F001

    @Test func subscribersOnTheChannelsWorkerAndOnAnotherDecodeThePublisherAndTheirFeedbackAndEventsCrossThePipe() async throws {
        // Budget 2: alice (publishing) and bob are served by the channel's worker; carol and dave by the other.
        let server = try TestServer { $0.media.workers = 2; $0.media.workerSubscriberBudget = 2; $0.media.qualityIntervalSeconds = 0.5 }
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "wide")
        let tracks = try await alice.publish(audioSSRC: Self.audioSSRC, video: Self.layers)
        let audio = try #require(tracks.first { $0.kind == .audio })
        let video = try #require(tracks.first { $0.kind == .video })
        // The channel's worker is the one with its router.
        var routers: [Double] = []
        try await eventually("the channel's router on /metrics", poll: .milliseconds(200)) {
            routers = try await server.metrics().perWorker("srtc_sfu_worker_channels")
            return routers.count == 2 && routers.reduce(0, +) == 1
        }
        let a = try #require(routers.firstIndex(of: 1)), b = 1 - a
        let ports = server.app.udpPorts
        print("channel on worker \(a) (port \(ports[a])); overflow on worker \(b) (port \(ports[b]))")

        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "wide", dataChannels: true)
        let carol = try await MediaTestClient(server: server, uid: "carol", channel: "wide", dataChannels: true)
        // dave (no data channels: his events come on the WebSocket) loses one video packet on
        // his subscribe path, which he then asks for again.
        let dave = try await MediaTestClient(server: server, uid: "dave", channel: "wide")
        let relay = try LossyRelay(server: try #require(SocketAddress(ip: "127.0.0.1", port: ports[b])))
        defer { relay.stop() }
        dave.subscribeRelay = relay
        let subscribers = [bob, carol, dave]
        for client in [bob, carol] {
            let endpoint = try await waitFor("\(client.uid)'s subscribe transport") { client.subscribeEndpoint }
            try await eventually("\(client.uid)'s data channel open") {
                endpoint.log.withLock { $0.dataChannel }.contains { if case .opened(let info) = $0 { info.id == SignalDataChannel.reliableID } else { false } }
            }
        }
        for client in subscribers {
            try await client.subscribe(audio.id)
            try await client.subscribe(video.id, layer: TrackDescName.cameraSmall)
        }
        // Each is served where its descriptions say: bob by the channel's worker, carol and dave by the other.
        for (client, worker) in [(bob, a), (carol, b), (dave, b)] {
            let offered = try #require(client.latestOffer).media.flatMap(\.candidates).map(\.port)
            #expect(!offered.isEmpty && offered.allSatisfy { $0 == ports[worker] }, "\(client.uid) offered \(offered), worker \(worker)")
        }
        // One pipe between the two workers (an end on each), whatever number of subscribers it serves.
        try await eventually("one pipe end on each worker", poll: .milliseconds(200)) {
            try await server.metrics().perWorker("srtc_sfu_worker_pipes") == [1, 1]
        }

        let lossySSRC = try #require(dave.announcedSSRC(of: video.id))
        let counter = Atomic<Int>(0)
        relay.drop.set { bytes in
            LossyRelay.rtpHeader(bytes)?.ssrc == lossySSRC && counter.add(1, ordering: .relaxed).newValue == 30
        }
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: Self.audioSSRC, video: Self.layers)
        publisher.audioLevel = 10
        try await publisher.run(seconds: 2.5)
        for client in subscribers { try await client.waitForMediaToSettle() }

        // dave's NACK for the packet he lost is answered by the worker that serves him.
        let endpoint = try #require(dave.subscribeEndpoint)
        let datagram = try #require(relay.dropped.withLock { $0.first })
        let lost = try #require(datagram.withUnsafeBytes { LossyRelay.rtpHeader($0) }).seq
        let resentBefore = try await server.metrics().perWorker("srtc_sfu_worker_retransmissions_total")
        endpoint.send(rtcp: [.nack(TransportLayerNack(senderSSRC: 0x5EED, mediaSSRC: lossySSRC, lost: [lost]))])
        #expect(await endpoint.waitFor { log in log.rtp.contains { $0.ssrc == lossySSRC && $0.sequenceNumber == lost } })
        try await eventually("worker \(b) counts the retransmission", poll: .milliseconds(200)) {
            let resent = try await server.metrics().perWorker("srtc_sfu_worker_retransmissions_total")
            return resent.count == 2 && resent[b] > resentBefore[b]
        }

        // Every subscriber decodes the publisher's frames in order, on either worker (dave's with the
        // packet resent in its place).
        for client in subscribers {
            let ssrc = try #require(client.announcedSSRC(of: video.id))
            let packets = try #require(client.subscribeEndpoint?.packets(ssrc: ssrc))
                .sorted { SequenceNumber.distance(from: $1.sequenceNumber, to: $0.sequenceNumber) < 0 }
            let numbers = try ClusterEdgeTests.decode(packets)
            print("\(client.uid) decoded \(numbers.count) frames: \(numbers.first ?? -1)…\(numbers.last ?? -1)")
            #expect(numbers.count > 20 && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(client.uid) decoded \(numbers)")
            let audioSSRC = try #require(client.announcedSSRC(of: audio.id))
            #expect((client.subscribeEndpoint?.packets(ssrc: audioSSRC).count ?? 0) > 40, "\(client.uid)'s audio")
        }

        // carol's key-frame request crosses the pipe and reaches alice as a PLI for a layer of her camera.
        let publishing = try #require(alice.publishEndpoint)
        func plis() -> Int {
            publishing.log.withLock { log in
                log.rtcp.filter { if case .pictureLossIndication(let p) = $0 { Self.layers.map(\.ssrc).contains(p.mediaSSRC) } else { false } }.count
            }
        }
        let carolSSRC = try #require(carol.announcedSSRC(of: video.id))
        let plisBefore = plis()
        try #require(carol.subscribeEndpoint).send(rtcp: [.pictureLossIndication(PictureLossIndication(senderSSRC: 0xCA201, mediaSSRC: carolSSRC))])
        try await eventually("alice gets a PLI after carol's") { plis() > plisBefore }

        // carol asks for camera_big: the relay switches, and both sessions it serves the track to
        // are told on their data channels, as bob is of his own switch.
        #expect(try await carol.signal.request(.setLayer(SubscribeRequest(trackId: video.id, layer: TrackDescName.cameraBig))) == .success(.empty))
        #expect(try await bob.signal.request(.setLayer(SubscribeRequest(trackId: video.id, layer: TrackDescName.cameraBig))) == .success(.empty))
        try await publisher.run(seconds: 1.5)
        for client in subscribers {
            try await eventually("\(client.uid): speakers, its quality and the switch to camera_big (on its data channel when it has one)") {
                let events = client.dataChannels ? client.dataChannelEvents : client.signal.events
                return RelayEvents.speakers(events).contains(["alice"]) && RelayEvents.switches(events, trackId: video.id, publisher: "alice").contains(TrackDescName.cameraBig)
                    && events.contains { if case .qualityReport(let r) = $0 { r.uid == client.uid && r.downstream.packets > 0 } else { false } }
            }
        }

        // User data between the workers: bob (channel's worker) to carol, carol to everyone.
        try await eventually(timeout: 30, "data both ways across the pipe", poll: .milliseconds(200)) {
            if ClusterEdgeDataTests.numbers(carol, from: "bob", topic: "hello").isEmpty { try ClusterEdgeDataTests.send(bob, "1", to: ["carol"], topic: "hello") }
            if ClusterEdgeDataTests.numbers(bob, from: "carol", topic: "hello").isEmpty { try ClusterEdgeDataTests.send(carol, "2", topic: "hello") }
            return !ClusterEdgeDataTests.numbers(carol, from: "bob", topic: "hello").isEmpty
                && !ClusterEdgeDataTests.numbers(bob, from: "carol", topic: "hello").isEmpty
        }

        // Both workers forwarded: the channel's to bob and into the pipe, the other to carol and dave.
        let forwarded = try await server.metrics().perWorker("srtc_sfu_worker_forwarded_packets_total")
        print("forwarded per worker: \(forwarded); pipe drops: \(try await server.metrics().perWorker("srtc_sfu_worker_pipe_drops_total"))")
        #expect(forwarded.count == 2 && forwarded.allSatisfy { $0 > 100 })

        // The channel closing closes the pipe.
        #expect(try await server.call("/server/v1/channel/close", ["channel": "wide"]).0 == 200)
        try await eventually("the pipe closed", poll: .milliseconds(200)) {
            try await server.metrics().perWorker("srtc_sfu_worker_pipes") == [0, 0]
        }
        for client in [alice] + subscribers { client.close() }
        await server.stop()
    }

    /// The same with the SDK's own clients: a publisher and a viewer served by the channel's
    /// worker, two viewers by the other; each viewer's decoder sees the pushed frames in order,
    /// and each hears who speaks.
    @Test func sdkViewersOnBothWorkersDecodeThePublishersFramesInOrder() async throws {
        let width = 320, height = 180, fps = 15
        let server = try SDKTestServer { $0.media.workers = 2; $0.media.workerSubscriberBudget = 2 }
        let publisher = SDKPeer()
        let viewers = [SDKPeer(), SDKPeer(), SDKPeer()]
        let collectors = viewers.map { _ in SDKAutoSubscriber() }
        for (viewer, collector) in zip(viewers, collectors) { viewer.channel.delegates.add(delegate: collector) }
        try await publisher.channel.join(url: server.url, token: server.token(uid: "pub", channel: "wide-sdk"))
        for (index, viewer) in viewers.enumerated() {
            try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer\(index)", channel: "wide-sdk"))
        }
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: width, height: height,
                                                                                                     frameRate: fps, maxBitrate: 300_000))
        let audio = publisher.engine.createLocalCustomAudioTrack(desc: "mic")
        try await publisher.channel.publishLocalTrack(video)
        try await publisher.channel.publishLocalTrack(audio)
        let pusher = try SDKMediaPusher(video: video, audio: audio, width: width, height: height, fps: fps)
        defer { pusher.stop() }
        try await eventually("2 s of frames pushed") { pusher.framesPushed >= 2 * fps }
        let pushed = pusher.framesPushed
        for (index, collector) in collectors.enumerated() {
            try await expectDecodedInOrder(collector.collector, through: pushed - 1, moreThan: fps, "viewer\(index)", timeout: 30)
        }
        // The publisher's tone makes it the speaker, for the viewers on either worker.
        for viewer in viewers { try await viewer.events.wait(for: "speakers pub") }
        // One pipe, and both workers forwarding: the channel's to viewer0 and into the pipe, the other to viewer1 and viewer2.
        try await eventually("a pipe end on each worker and both forwarding", poll: .milliseconds(200)) {
            let metrics = try await server.metrics()
            let forwarded = metrics.perWorker("srtc_sfu_worker_forwarded_packets_total")
            return metrics.perWorker("srtc_sfu_worker_pipes") == [1, 1] && forwarded.count == 2 && forwarded.allSatisfy { $0 > 100 }
        }
        for peer in viewers + [publisher] { await peer.channel.leave() }
        await server.stop()
    }
}
