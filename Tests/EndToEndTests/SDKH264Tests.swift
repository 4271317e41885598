import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCTestSupport
import TestWait
import Testing

/// H.264 between SDK engines through the real server: a publisher that prefers H.264 sends it
/// (OpenH264, RFC 6184 packetization-mode 1, simulcast by rid), the server forwards it, and a
/// subscriber with the default preference decodes it (frame numbers in the pixels), on both layers.
@Suite(.serialized) struct SDKH264Tests {
    static func engine(codec: VideoCodec) -> (SRTCEngine, Channel, SDKEventRecorder) {
        let peer = SDKPeer(preferredVideoCodec: codec)
        return (peer.engine, peer.channel, peer.events)
    }

    @Test func anH264SimulcastPublicationIsDecodedOnBothLayers() async throws {
        let server = try SDKTestServer()
        let (aEngine, a, _) = Self.engine(codec: .h264)
        let (_, b, bEvents) = Self.engine(codec: .vp8)
        let subscriber = SDKAutoSubscriber(layer: .cameraBig)
        b.delegates.add(delegate: subscriber)
        try await a.join(url: server.url, token: server.token(uid: "a", channel: "h264"))
        try await b.join(url: server.url, token: server.token(uid: "b", channel: "h264"))
        let video = aEngine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000))
        try await a.publishLocalTrack(video)
        // The server forwards the first codec of the offer: the track is announced as H.264.
        #expect(video.info?.codec?.lowercased() == "h264")
        #expect(video.info?.layers.map(\.desc) == ["camera_big", "camera_small"])
        try await bEvents.wait(for: "track+ a camera_big")
        let remote = try #require(b.remoteTrack(uid: "a", desc: "camera_big") as? RemoteVideoTrack)
        #expect(remote.info?.codec?.lowercased() == "h264")

        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }
        try await eventually("big H.264 frames decoded") { subscriber.collector.sizes.filter { $0 == (640, 360) }.count >= 30 }
        let big = subscriber.collector.numbers
        #expect(frameGaps(big).ordered, "numbers \(big)")
        #expect(frameGaps(big).missing <= 3, "missing \(frameGaps(big).missing) in \(big.first ?? -1)...\(big.last ?? -1)")
        // The subscribe transport carries H.264: the receiver decoded with OpenH264.
        let receiving = b.state.withLock { $0.media }?.subscribe.videoCodecs ?? []
        #expect(receiving == [.h264])

        try await b.switchLayer(remote, to: .cameraSmall)
        try await bEvents.wait(for: "layer camera_small")
        try await eventually("small H.264 frames decoded") { subscriber.collector.sizes.suffix(10).allSatisfy { $0 == (160, 90) } }
        let numbers = subscriber.collector.numbers
        #expect(numbers == numbers.sorted())
        #expect((numbers.last ?? 0) > (big.last ?? 0))
        pusher.stop()
        await a.leave()
        await b.leave()
        await server.stop()
    }
}
