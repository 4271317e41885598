#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RTCMedia
import RTCNet
@testable import SRTCCore
import SRTCLab
@testable import SRTCServer
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// A channel moving between cluster nodes with real SDK clients and real media (docs/deploy.md,
/// "Drain and failover"): node a is its own `srtc-server` process, so it gets a real `SIGTERM`
/// or `SIGKILL`; node b runs in this process; both share one Redis. The clients join through a
/// TCP load balancer in front of both nodes, as in a deployment: the test's own relay, or a real
/// HAProxy checking each node's `/readyz`.
@Suite(.serialized) struct ClusterMoveTests {
    static let width = 320, height = 180

    /// Two nodes, a publisher and a subscriber in channel "m" (run by a), frames flowing.
    /// What the clients connect through.
    enum Balancer {
        /// `SDKTestProxy`: each connection to the next port that accepts it, no health checks.
        case relay
        /// HAProxy in TCP mode with health checks on `/readyz` every 250 ms.
        case haproxy
    }

    struct Cluster {
        let a: TestNodeProcess
        let b: TestServer
        let balancerURL: String
        let stopBalancer: @Sendable () -> Void
        let publisher: SDKPeer
        let subscriber: SDKPeer
        let collector: SDKAutoSubscriber
        let pusher: SDKMediaPusher
        /// One idle participant per node in channels of their own (`onSecondWorker`).
        let bystanders: [SDKPeer]

        /// - Parameter dataChannels: the clients ask for data channels (events and user data).
        /// - Parameter drainSeconds: node a's `--drain-seconds`.
        /// - Parameter onSecondWorker: node a runs two media workers and channel "m" on its
        ///   second (worker 1): a bystander's channel is placed on a first (its worker 0), another
        ///   on b, so "m" ties back to a, where placement puts it on the worker without a channel.
        init(dataChannels: Bool = false, balancer kind: Balancer = .relay, drainSeconds: Int = 1, onSecondWorker: Bool = false) async throws {
            let redis = try await TestRedis.freshURL()
            let a = try await TestNodeProcess(arguments: ["--redis-url", redis, "--node-id", "a", "--drain-seconds", "\(drainSeconds)"]
                                              + (onSecondWorker ? ["--media-workers", "2"] : []))
            let b = try TestServer { $0.cluster.redisURL = redis; $0.cluster.nodeId = "b"; $0.media.qualityIntervalSeconds = 0.5 }
            switch kind {
            case .relay:
                let relay = try SDKTestProxy(to: [a.httpPort, b.app.httpPort])
                balancerURL = relay.url
                stopBalancer = { relay.stop() }
            case .haproxy:
                let haproxy = try await TestHAProxy(to: [a.httpPort, b.app.httpPort])
                balancerURL = haproxy.url
                stopBalancer = { haproxy.stop() }
            }
            var bystanders: [SDKPeer] = []
            if onSecondWorker {
                let registry = try #require(b.app.cluster?.registry)
                for (node, channel) in [("a", "bystander-a"), ("b", "bystander-b")] {
                    let bystander = SDKPeer()
                    try await bystander.channel.join(url: balancerURL, token: b.token(uid: "by-\(node)", channel: channel))
                    bystanders.append(bystander)
                    // Placement reads the loads the nodes published at their last heartbeat.
                    try await eventually("node \(node) publishes its bystander") {
                        try await registry.liveNodes().first { $0.id == node }?.participants == 1
                    }
                }
            }
            self.bystanders = bystanders
            let publisher = SDKPeer(useDataChannel: dataChannels), subscriber = SDKPeer(useDataChannel: dataChannels)
            let collector = SDKAutoSubscriber()
            subscriber.channel.delegates.add(delegate: collector)
            // Both idle: the channel is placed on "a" (ties go to the smaller id).
            try await publisher.channel.join(url: balancerURL, token: b.token(uid: "pub", channel: "m"))
            try await subscriber.channel.join(url: balancerURL, token: b.token(uid: "sub", channel: "m"))
            let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: ClusterMoveTests.width, height: ClusterMoveTests.height, frameRate: 30, maxBitrate: 400_000))
            try await publisher.channel.publishLocalTrack(video)
            pusher = try SDKMediaPusher(video: video, audio: nil, width: ClusterMoveTests.width, height: ClusterMoveTests.height)
            try await eventually("first frames") { collector.collector.frameCount > 10 }
            #expect(b.app.channels.count == (onSecondWorker ? 1 : 0), "the channel runs on a")
            if onSecondWorker {
                // Worker 1 forwards the channel's frames; worker 0 (the bystander's) forwards nothing.
                try await eventually("a's worker 1 forwards channel m") {
                    let forwarded = MetricsSnapshot(text: try await a.get("/metrics").body).perWorker("srtc_sfu_worker_forwarded_packets_total")
                    return forwarded.count == 2 && forwarded[0] == 0 && forwarded[1] > 100
                }
            }
            self.a = a
            self.b = b
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
            for bystander in bystanders { await bystander.channel.leave() }
            stopBalancer()
            await b.stop()
            a.send(SIGKILL)
        }
    }

    /// Also with the channel on node a's second media worker (issue 27): its clients resume on b
    /// with their frames in order, as from worker 0.
    @Test(arguments: [false, true])
    func drainingTheChannelsNodeMovesEveryClientWithoutAnyoneLeaving(onSecondWorker: Bool) async throws {
        let cluster = try await Cluster(onSecondWorker: onSecondWorker)
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
        func subscribeSession(_ peer: SDKPeer) -> SubscribeSession? { peer.channel.media?.subscribe }
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

    /// Seconds from now until the subscriber decodes a frame it had not decoded at `stalled`
    /// (frames in flight at the cut are decoded within a few hundred milliseconds of it).
    static func secondsUntilMediaIsBack(_ collector: SDKMediaCollector, since start: ContinuousClock.Instant) async throws -> Double {
        try await Task.sleep(for: .milliseconds(300))
        let stalled = collector.frameCount
        try await eventually(timeout: 30, "media back; \(collector.frameCount - stalled) new frames", poll: .milliseconds(5)) {
            collector.frameCount > stalled
        }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The channel's node killed behind HAProxy: the clients' WebSockets break, their SDKs
    /// reconnect through HAProxy to b and ask again every 250 ms while b answers "retry" (a is
    /// registered until its entry expires, at most 3 s), then resume there. The gap is printed
    /// (docs/deploy.md "Drain and failover" reports the measured figures).
    /// Also with the channel on node a's second media worker (issue 27).
    @Test(arguments: [false, true])
    func killingTheChannelsNodeBehindHAProxyBringsTheMediaBackOnTheOtherNode(onSecondWorker: Bool) async throws {
        let cluster = try await Cluster(balancer: .haproxy, onSecondWorker: onSecondWorker)
        let killed = ContinuousClock.now
        cluster.a.send(SIGKILL)
        let gap = try await Self.secondsUntilMediaIsBack(cluster.collector.collector, since: killed)
        print("failover behind HAProxy\(onSecondWorker ? " (channel on a's worker 1)" : ""): media back \(String(format: "%.2f", gap)) s after kill -9 of the channel's node")
        _ = try await cluster.a.waitForExit()
        try await cluster.expectResumedOnB()
        await cluster.stop()
    }

    /// A drain behind HAProxy: the draining node's `/readyz` answers 503 from `SIGTERM` on, HAProxy
    /// takes it out within two checks (while the node still serves its channel), so when the drain
    /// ends and the clients reconnect every reconnection reaches b: the draining node refuses none.
    @Test func drainingBehindHAProxyRefusesNoReconnection() async throws {
        let cluster = try await Cluster(balancer: .haproxy, drainSeconds: 3)
        let (status, body) = try await cluster.a.get("/readyz")
        #expect(status == 200, "\(body)")
        let drained = ContinuousClock.now
        cluster.a.send(SIGTERM)
        try await eventually(timeout: 10, "a not ready while draining") { (try? await cluster.a.get("/readyz").status) == 503 }
        let (live, liveBody) = try await cluster.a.get("/healthz")
        #expect(live == 200 && liveBody.contains(#""draining":true"#), "\(liveBody)")
        // HAProxy takes a out: new connections through it (each a TCP connection of its own)
        // all reach b, while a still serves its channel. Checking /healthz instead, it keeps
        // sending every other one to a, and this wait times out.
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(1), timeout: .seconds(2)))
        try await eventually(timeout: 10, "the balancer sends no new connection to the draining node") {
            for _ in 0..<8 {
                let body = try await client.get(cluster.balancerURL + "/healthz").body
                if String(decoding: body, as: UTF8.self).contains(#""draining":true"#) { return false }
            }
            return true
        }
        #expect(cluster.b.app.channels.count == 0, "the channel is still served by a during the drain")
        try await cluster.expectResumedOnB()
        #expect(try await cluster.a.waitForExit() == 0, "\(cluster.a.log.suffix(3000))")
        let elapsed = ContinuousClock.now - drained
        print("drain behind HAProxy: clients resumed on b, \(elapsed) after SIGTERM (drain 3 s)")
        #expect(!cluster.a.log.contains("refused a signaling WebSocket"), "\(cluster.a.log.suffix(3000))")
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
