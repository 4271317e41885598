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
        let publisher: SDKMediaTests.Peer
        let subscriber: SDKMediaTests.Peer
        let collector: SDKAutoSubscriber
        let pusher: SDKMediaPusher

        init() async throws {
            let redis = try await TestRedis.freshURL()
            let a = try await TestNodeProcess(arguments: ["--redis-url", redis, "--node-id", "a", "--drain-seconds", "1"])
            let b = try TestServer { $0.redisURL = redis; $0.nodeId = "b" }
            let balancer = try SDKTestProxy(to: [a.httpPort, b.app.httpPort])
            let publisher = SDKMediaTests.Peer(useDataChannel: false), subscriber = SDKMediaTests.Peer(useDataChannel: false)
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

    @Test func killingTheChannelsNodeMovesEveryClientOnceItsHeartbeatExpires() async throws {
        let cluster = try await Cluster()
        cluster.a.send(SIGKILL)
        _ = try await cluster.a.waitForExit()
        try await cluster.expectResumedOnB()
        await cluster.stop()
    }
}
