import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Seed 000: one engine may be in several channels at once, and one local track may be published
/// in more than one of them (the same camera in a meeting and in a side channel): every channel's
/// subscribers decode the same frames.
@Suite struct SDKTwoChannelsTests {
    static let width = 320, height = 180

    @Test func oneLocalTrackPublishedInTwoChannelsIsDecodedInBoth() async throws {
        let server = try SDKTestServer()
        let publisher = SDKPeer()
        let second = try publisher.engine.createChannel()
        let viewers = [SDKPeer(), SDKPeer()]
        let collectors = [SDKAutoSubscriber(), SDKAutoSubscriber()]
        for (viewer, collector) in zip(viewers, collectors) { viewer.channel.delegates.add(delegate: collector) }
        try await publisher.channel.join(url: server.url, token: server.token(uid: "pub", channel: "one"))
        try await second.join(url: server.url, token: server.token(uid: "pub", channel: "two"))
        try await viewers[0].channel.join(url: server.url, token: server.token(uid: "v1", channel: "one"))
        try await viewers[1].channel.join(url: server.url, token: server.token(uid: "v2", channel: "two"))
        #expect(publisher.engine.getChannels().count == 2)

        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 400_000))
        try await publisher.channel.publishLocalTrack(video)
        try await second.publishLocalTrack(video)
        #expect(publisher.channel.localTracks.count == 1 && second.localTracks.count == 1)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: Self.width, height: Self.height)
        defer { pusher.stop() }
        try await eventually("2 s of frames pushed") { pusher.framesPushed >= 60 }
        let pushed = pusher.framesPushed
        for (index, collector) in collectors.enumerated() {
            try await expectDecodedInOrder(collector.collector, through: pushed - 1, moreThan: 30, "viewer \(index + 1)")
        }
        // Unpublished in one channel, it goes on in the other.
        try await second.unpublishLocalTrack(video)
        try await eventually("v2 sees the track go") { viewers[1].channel.remoteTrack(uid: "pub", desc: "camera") == nil }
        let before = collectors[0].collector.frameCount
        try await eventually("v1 still decodes") { collectors[0].collector.frameCount > before + 15 }

        for peer in viewers { await peer.channel.leave() }
        await second.leave()
        await publisher.channel.leave()
        await server.stop()
    }
}
