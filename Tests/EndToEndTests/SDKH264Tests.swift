import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
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
        let receiving = b.media?.subscribe.videoCodecs ?? []
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

    /// `LocalEncodedVideoTrack`: H.264 the app encoded itself (OpenH264 here, Annex B, an IDR
    /// every second it is not asked for) goes out as pushed. The track is announced as H.264 even
    /// though the engine prefers VP8 (its section offers H.264 alone), nothing reaches a receiver
    /// before a key frame, and the subscriber decodes the frame numbers in order.
    @Test func anEncodedH264TrackIsSentAsPushedAndDecoded() async throws {
        let server = try SDKTestServer()
        let (aEngine, a, _) = Self.engine(codec: .vp8)
        let (_, b, bEvents) = Self.engine(codec: .vp8)
        let subscriber = SDKAutoSubscriber()
        b.delegates.add(delegate: subscriber)
        try await a.join(url: server.url, token: server.token(uid: "a", channel: "encoded"))
        try await b.join(url: server.url, token: server.token(uid: "b", channel: "encoded"))
        let track = aEngine.createLocalEncodedVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 240, frameRate: 15, maxBitrate: 500_000))
        #expect(track.codec == .h264)
        #expect(!track.pushEncodedFrame([0, 0, 0, 1, 0x65, 0x88], isKeyFrame: true, timestampUs: 0), "sent before it is published")
        try await a.publishLocalTrack(track)
        #expect(track.info?.codec?.lowercased() == "h264")
        #expect(track.info?.layers.isEmpty == true)
        // Publishing asks for a key frame; the SDK cannot make one, so the request stays until an IDR is pushed.
        #expect(track.keyFrameRequested)
        // A delta frame before any key frame goes nowhere (a receiver could not decode it).
        #expect(!track.pushEncodedFrame([0, 0, 0, 1, 0x41, 0x9A, 0x00], isKeyFrame: false, timestampUs: 0))
        try await bEvents.wait(for: "track+ a camera_big")

        let generator = try TestPatternGenerator(width: 320, height: 240, frameRate: 15)
        let pushing = Task.detached {
            var configuration = H264Encoder.Configuration(width: 320, height: 240)
            configuration.frameRate = 15
            configuration.keyFrameInterval = 15
            let encoder = try H264Encoder(configuration: configuration)
            var number = 0, keyFrames = 0
            while !Task.isCancelled {
                if let unit = try encoder.encode(generator.videoFrame(number: number)) {
                    if unit.isKeyFrame { keyFrames += 1 }
                    track.pushEncodedFrame(unit.data, isKeyFrame: unit.isKeyFrame, timestampUs: unit.timestampUs)
                }
                number += 1
                try? await Task.sleep(for: .milliseconds(66))
            }
            return (number, keyFrames)
        }
        try await eventually(timeout: 60, "encoded H.264 frames decoded") { subscriber.collector.numbers.count >= 30 }
        pushing.cancel()
        let (pushed, keyFrames) = try await pushing.value
        let numbers = subscriber.collector.numbers
        print("encoded track: \(pushed) frames pushed (\(keyFrames) IDR), \(track.framesSent) sent, \(numbers.count) decoded, "
              + "\(numbers.first ?? -1)…\(numbers.last ?? -1), \(frameGaps(numbers).missing) missing")
        #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
        #expect(track.framesSent > 0 && track.framesSent <= pushed)
        let receiving = b.media?.subscribe.videoCodecs ?? []
        #expect(receiving == [.h264])
        await a.leave()
        await b.leave()
        await server.stop()
    }
}
