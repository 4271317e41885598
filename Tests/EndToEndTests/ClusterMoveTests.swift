#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RTCMedia
@testable import SRTC
@testable import SRTCServer
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// A channel moving between cluster nodes with real SDK clients and real media (docs/deploy.md,
/// "Drain and failover"): node a is its own `srtc-server` process, so it gets a real `SIGTERM`
/// or `SIGKILL`; node b runs in this process; both share one Redis. The clients join through a
/// TCP load balancer in front of both nodes, as in a deployment.
@Suite(.serialized) struct ClusterMoveTests {
    static let width = 320, height = 180

    /// Two nodes, a publisher and a subscriber in channel "m" (run by a), frames flowing.
    struct Cluster {
        let a: TestNodeProcess
        let b: TestServer
        let balancer: SDKTestProxy
        let publisher: SDKPeer
        let subscriber: SDKPeer
        let collector: SDKAutoSubscriber
        let pusher: SDKMediaPusher

        /// - Parameter dataChannels: the clients ask for data channels (events and user data).
        init(dataChannels: Bool = false) async throws {
            let redis = try await TestRedis.freshURL()
            let a = try await TestNodeProcess(arguments: ["--redis-url", redis, "--node-id", "a", "--drain-seconds", "1"])
            let b = try TestServer { $0.redisURL = redis; $0.nodeId = "b"; $0.qualityIntervalSeconds = 0.5 }
            let balancer = try SDKTestProxy(to: [a.httpPort, b.app.httpPort])
            let publisher = SDKPeer(useDataChannel: dataChannels), subscriber = SDKPeer(useDataChannel: dataChannels)
            let collector = SDKAutoSubscriber()
            subscriber.channel.delegates.add(delegate: collector)
            // Both idle: the channel is placed on "a" (ties go to the smaller id).
            try await publisher.channel.join(url: balancer.url, token: b.token(uid: "pub", channel: "m"))
            try await subscriber.channel.join(url: balancer.url, token: b.token(uid: "sub", channel: "m"))
            let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: ClusterMoveTests.width, height: ClusterMoveTests.height, frameRate: 30, maxBitrate: 400_000))
            try await publisher.channel.publishLocalTrack(video)
            pusher = try SDKMediaPusher(video: video, audio: nil, width: ClusterMoveTests.width, height: ClusterMoveTests.height)
            try await eventually("first frames") { collector.collector.frameCount > 10 }
            #expect(b.app.channels.count == 0, "the channel runs on a")
            self.a = a
            self.b = b
            self.balancer = balancer
            self.publisher = publisher
            self.subscriber = subscriber
            self.collector = collector
        }

        /// After the move: both clients resumed on b, nobody saw anyone leave, frames flow again
        /// from b, in order.
        func expectResumedOnB() async throws {
            try await publisher.events.wait(for: "reconnected")
            try await subscriber.events.wait(for: "reconnected")
            let channel = ChannelKey(appId: TestServer.appId, name: "m")
            let b = self.b, collector = self.collector
            try await eventually(timeout: 30, "the channel runs on b") { b.app.channels.existingRoom(channel) != nil }
            let moved = collector.collector.frameCount
            try await eventually(timeout: 30, "frames from b; \(collector.collector.frameCount - moved) so far") {
                collector.collector.frameCount > moved + 30
            }
            for peer in [publisher, subscriber] {
                #expect(!peer.events.events.contains { $0.hasPrefix("user-") || $0.hasPrefix("track-") || $0.hasPrefix("disconnected") },
                        "\(peer.events.events)")
            }
            #expect(subscriber.channel.users.map(\.uid) == ["pub"] && publisher.channel.users.map(\.uid) == ["sub"])
            #expect(frameGaps(collector.collector.numbers).ordered)
        }

        func stop() async {
            pusher.stop()
            await publisher.channel.leave()
            await subscriber.channel.leave()
            balancer.stop()
            await b.stop()
            a.send(SIGKILL)
        }
    }

    @Test func drainingTheChannelsNodeMovesEveryClientWithoutAnyoneLeaving() async throws {
        let cluster = try await Cluster()
        cluster.a.send(SIGTERM)
        try await cluster.expectResumedOnB()
        // The drained node handed the channel over and exited cleanly.
        #expect(try await cluster.a.waitForExit() == 0, "\(cluster.a.log.suffix(3000))")
        #expect(cluster.a.log.contains("draining"))
        await cluster.stop()
    }

    /// After a drain the clients' data channels come back on the new node: events (quality
    /// reports, every half second on b) arrive there, and user data goes from one client to the
    /// other. The drained node, whose SCTP associations were live, exits cleanly (it crashed at
    /// exit in OpenSSL's freed locks before COpenSSLRuntime).
    @Test func drainingTheChannelsNodeGivesTheMovedClientsTheirDataChannelsBack() async throws {
        let cluster = try await Cluster(dataChannels: true)
        let received = SDKDataMessageTests.DataRecorder()
        cluster.subscriber.channel.delegates.add(delegate: received)
        func subscribeSession(_ peer: SDKPeer) -> SubscribeSession? { peer.channel.state.withLock { $0.media }?.subscribe }
        try await eventually("data channels open on a") {
            subscribeSession(cluster.publisher)?.dataChannelOpen == true && subscribeSession(cluster.subscriber)?.dataChannelOpen == true
        }
        let before = try #require(subscribeSession(cluster.subscriber))
        cluster.a.send(SIGTERM)
        try await cluster.expectResumedOnB()
        #expect(try await cluster.a.waitForExit() == 0, "\(cluster.a.log.suffix(3000))")
        // New transports on b (the old ones stayed behind), with their data channels open again.
        try await eventually(timeout: 30, "data channels open on b") {
            guard let pub = subscribeSession(cluster.publisher), let sub = subscribeSession(cluster.subscriber), sub !== before else { return false }
            return pub.dataChannelOpen && sub.dataChannelOpen
        }
        try await eventually("events on the new data channel") { (subscribeSession(cluster.subscriber)?.dataEventsReceived ?? 0) > 0 }
        try cluster.publisher.channel.publishData(Data("after the move".utf8), topic: "moved")
        try await eventually("the publisher's data on b") { received.messages.contains { $0.topic == "moved" } }
        #expect(received.messages.map { String(decoding: $0.data, as: UTF8.self) } == ["after the move"])
        #expect(received.messages.first?.from == "pub")
        await cluster.stop()
    }

    @Test func killingTheChannelsNodeMovesEveryClientOnceItsHeartbeatExpires() async throws {
        let cluster = try await Cluster()
        cluster.a.send(SIGKILL)
        _ = try await cluster.a.waitForExit()
        try await cluster.expectResumedOnB()
        await cluster.stop()
    }
}
