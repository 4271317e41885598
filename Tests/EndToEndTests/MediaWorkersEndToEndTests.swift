import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// A server with two media workers, driven by real SDK clients (docs/architecture.md, "Media
/// workers"): channels are spread over both workers, and each worker forwards its channels'
/// media to their subscribers, who decode it.
@Suite(.serialized) struct MediaWorkersEndToEndTests {
    static let width = 320, height = 180, fps = 15

    @Test func tenChannelsAreSpreadOverTwoWorkersAndEverySubscriberDecodesItsChannel() async throws {
        let server = try SDKTestServer { $0.media.workers = 2 }
        let names = (0 ..< 10).map { "workers\($0)" }
        // One publishing engine and one viewing engine, each in all ten channels: ten encoders
        // and ten decoders would not fit this machine beside the other tests.
        let publisher = SDKPeer(), viewer = SDKPeer()
        let published = [publisher.channel] + (try (1 ..< names.count).map { _ in try publisher.engine.createChannel() })
        let viewed = [viewer.channel] + (try (1 ..< names.count).map { _ in try viewer.engine.createChannel() })
        let collectors = names.map { _ in SDKAutoSubscriber() }
        for (channel, collector) in zip(viewed, collectors) { channel.delegates.add(delegate: collector) }
        for (channel, name) in zip(published, names) { try await channel.join(url: server.url, token: server.token(uid: "pub", channel: name)) }
        for (channel, name) in zip(viewed, names) { try await channel.join(url: server.url, token: server.token(uid: "viewer", channel: name)) }

        // Placement: both workers took channels (an idle tie alternates by transports and routers).
        var channels: [Double] = []
        try await eventually("both workers report their channels", poll: .milliseconds(200)) {
            channels = try await server.metrics().perWorker("srtc_sfu_worker_channels")
            return channels.count == 2 && channels.reduce(0, +) == 10
        }
        #expect(channels.allSatisfy { $0 >= 3 }, "channels per worker: \(channels)")

        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: Self.width, height: Self.height,
                                                                                                     frameRate: Self.fps, maxBitrate: 300_000))
        for channel in published { try await channel.publishLocalTrack(video) }
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: Self.width, height: Self.height, fps: Self.fps)
        defer { pusher.stop() }
        try await eventually("2 s of frames pushed") { pusher.framesPushed >= 2 * Self.fps }
        let pushed = pusher.framesPushed
        for (index, collector) in collectors.enumerated() {
            try await expectDecodedInOrder(collector.collector, through: pushed - 1, moreThan: Self.fps, "channel \(index)'s viewer", timeout: 30)
        }
        // Each worker forwarded its channels' packets, on its own thread.
        try await eventually("each worker's forwarded packets and CPU time show on /metrics", poll: .milliseconds(200)) {
            let metrics = try await server.metrics()
            let forwarded = metrics.perWorker("srtc_sfu_worker_forwarded_packets_total")
            let cpu = metrics.perWorker("srtc_sfu_worker_cpu_seconds_total")
            // The node's totals (and the load it reports to a cluster) are the workers' sum.
            let total = metrics["srtc_media_packets_total{direction=\"out\",kind=\"rtp\"}"]
            return forwarded.count == 2 && forwarded.allSatisfy { $0 > 100 } && cpu.count == 2 && cpu.allSatisfy { $0 > 0 }
                && total == forwarded.reduce(0, +)
        }

        for channel in viewed + published { await channel.leave() }
        await server.stop()
    }
}
