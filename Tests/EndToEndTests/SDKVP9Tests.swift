import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCTestSupport
import TestWait
import Testing

/// VP9 between SDK engines through the real server: a publisher that prefers VP9 sends it (libvpx
/// profile 0, RFC 9628 descriptors, simulcast by rid), the server forwards it, and a subscriber with
/// the default preference decodes it (frame numbers in the pixels), on both layers.
@Suite(.serialized) struct SDKVP9Tests {
    @Test func aVP9SimulcastPublicationIsDecodedInOrderOnBothLayers() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(preferredVideoCodec: .vp9)
        let b = SDKPeer(preferredVideoCodec: .vp8)
        let subscriber = SDKAutoSubscriber(layer: .cameraBig)
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "vp9"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "vp9"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000))
        try await a.channel.publishLocalTrack(video)
        // The server forwards the first codec of the offer: the track is announced as VP9.
        #expect(video.info?.codec?.lowercased() == "vp9")
        try await b.events.wait(for: "track+ a camera_big")
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "camera_big") as? RemoteVideoTrack)
        #expect(remote.info?.codec?.lowercased() == "vp9")

        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }
        try await eventually("VP9 frames decoded") { subscriber.collector.sizes.filter { $0 == (640, 360) }.count >= 30 }
        let numbers = subscriber.collector.numbers
        #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
        #expect(frameGaps(numbers).missing <= 3, "missing \(frameGaps(numbers).missing) in \(numbers.first ?? -1)...\(numbers.last ?? -1)")
        // The subscribe transport carries VP9: the receiver decoded with libvpx's VP9 decoder.
        let receiving = b.channel.state.withLock { $0.media }?.subscribe.videoCodecs ?? []
        #expect(receiving == [.vp9])

        // Simulcast: the small encoding after a switch, from a key frame of that layer.
        try await b.channel.switchLayer(remote, to: .cameraSmall)
        try await b.events.wait(for: "layer camera_small")
        try await eventually("small VP9 frames decoded") { subscriber.collector.sizes.suffix(10).allSatisfy { $0 == (160, 90) } }
        let after = subscriber.collector.numbers
        #expect(after == after.sorted())
        #expect((after.last ?? 0) > (numbers.last ?? 0))
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }
}
