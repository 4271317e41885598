import Foundation
import RTCMedia
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Seed 000, `startLocalPreview:view:`: "before joining a channel, the SDK only turns on the
/// camera and waits until a channel instance joins before it starts publishing; after joining it
/// starts publishing automatically", each channel deciding with its own `publishLocalVideo`.
/// Checked by what subscribers decode (the pattern's frame numbers), through the real server.
@Suite struct PreviewPublishingTests {
    static let preset = VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000)

    /// Waits until `collector` decodes frames pushed after now.
    static func waitForFreshFrames(_ collector: SDKMediaCollector, _ pusher: SDKMediaPusher, _ what: String) async throws {
        let from = pusher.framesPushed
        try await eventually(timeout: 20, "\(what): frames after \(from); last \(collector.numbers.last ?? -1)") {
            (collector.numbers.last ?? -1) > from + 10
        }
    }

    @Test func thePreviewIsPublishedOnJoiningAndFollowsEachChannelsSwitch() async throws {
        let server = try SDKTestServer()
        let publisher = SDKPeer()
        let side = try publisher.engine.createChannel()
        let viewers = [SDKPeer(), SDKPeer()]
        let watching = [SDKAutoSubscriber(layer: .cameraBig), SDKAutoSubscriber(layer: .cameraBig)]
        for (viewer, subscriber) in zip(viewers, watching) { viewer.channel.delegates.add(delegate: subscriber) }
        try await viewers[0].channel.join(url: server.url, token: server.token(uid: "v1", channel: "main"))
        try await viewers[1].channel.join(url: server.url, token: server.token(uid: "v2", channel: "side"))

        // Previewing before joining: the camera runs, nothing is published.
        let camera = publisher.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: Self.preset)
        publisher.engine.startLocalPreview(track: camera, view: nil)
        let pusher = try SDKMediaPusher(video: camera, audio: nil, width: Self.preset.width, height: Self.preset.height)
        defer { pusher.stop() }
        #expect(side.publishesLocalVideo && publisher.channel.publishesLocalVideo, "on by default")
        try await side.publishLocalVideo(false)

        // Joining publishes it (before join returns) where the switch is on, and only there.
        try await publisher.channel.join(url: server.url, token: server.token(uid: "pub", channel: "main"))
        #expect(publisher.channel.localTracks.count == 1 && publisher.channel.localTracks.first === camera)
        try await side.join(url: server.url, token: server.token(uid: "pub", channel: "side"))
        #expect(side.localTracks.isEmpty)
        try await Self.waitForFreshFrames(watching[0].collector, pusher, "v1 decodes the preview")
        #expect(frameGaps(watching[0].collector.numbers).ordered)
        #expect(viewers[1].channel.remoteTrack(uid: "pub", desc: "camera_big") == nil)

        // The side channel's switch on: it sends the same capture.
        try await side.publishLocalVideo(true)
        #expect(side.localTracks.first === camera)
        try await Self.waitForFreshFrames(watching[1].collector, pusher, "v2 decodes the preview")

        // Off in the main channel: v1 sees the track go, v2 goes on decoding.
        try await publisher.channel.publishLocalVideo(false)
        #expect(publisher.channel.localTracks.isEmpty)
        try await eventually("v1 sees the preview go") { viewers[0].channel.remoteTrack(uid: "pub", desc: "camera_big") == nil }
        try await Self.waitForFreshFrames(watching[1].collector, pusher, "v2 still decodes")

        // Stopping the preview unpublishes it; the app's own track keeps its capture.
        publisher.engine.stopLocalPreview()
        try await eventually("v2 sees the preview go") { viewers[1].channel.remoteTrack(uid: "pub", desc: "camera_big") == nil }
        // The server tells v2 before its answer to the unpublish reaches the publisher.
        try await eventually("the side channel drops the preview") { side.localTracks.isEmpty }

        // A preview started while joined is published at once where the switch is on.
        publisher.engine.startLocalPreview(track: camera, view: nil)
        try await eventually("the side channel publishes the new preview") { side.localTracks.count == 1 }
        try await Self.waitForFreshFrames(watching[1].collector, pusher, "v2 decodes the new preview")
        #expect(publisher.channel.localTracks.isEmpty, "the main channel's switch is still off")

        for viewer in viewers { await viewer.channel.leave() }
        await publisher.engine.destroy()
        await server.stop()
    }
}
