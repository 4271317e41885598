import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCTestSupport
import TestWait
import Testing

/// AV1 between SDK engines through the real server: a publisher that prefers AV1 sends it (libaom
/// real-time, av1-rtp-spec payloads, one layer with L1T1 Dependency Descriptors), the server
/// forwards it, and a subscriber with the default preference decodes it with dav1d (frame numbers
/// in the pixels, in order).
@Suite(.serialized) struct SDKAV1Tests {
    @Test func anAV1PublicationIsDecodedInOrder() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(preferredVideoCodec: .av1)
        let b = SDKPeer(preferredVideoCodec: .vp8)
        let subscriber = SDKAutoSubscriber(layer: .cameraBig)
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "av1"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "av1"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000),
                                                         simulcast: false)
        try await a.channel.publishLocalTrack(video)
        // The server forwards the first codec of the offer: the track is announced as AV1.
        #expect(video.info?.codec?.lowercased() == "av1")
        try await b.events.wait(for: "track+ a camera_big")
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "camera_big") as? RemoteVideoTrack)
        #expect(remote.info?.codec?.lowercased() == "av1")

        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }
        let decoded = await (try? eventually("AV1 frames decoded") { subscriber.collector.sizes.filter { $0 == (640, 360) }.count >= 45 }) != nil
        let numbers = subscriber.collector.numbers
        let stats = b.channel.state.withLock { $0.media }?.subscribe
        print("SDKAV1Tests: decoded \(decoded), sizes \(subscriber.collector.sizes.count) \(subscriber.collector.sizes.suffix(3)), codecs \(stats?.videoCodecs ?? [])")
        #expect(decoded)
        print("SDKAV1Tests: \(numbers.count) frames decoded, \(numbers.first ?? -1)...\(numbers.last ?? -1), missing \(frameGaps(numbers).missing)")
        #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
        #expect(frameGaps(numbers).missing <= 3, "missing \(frameGaps(numbers).missing) in \(numbers.first ?? -1)...\(numbers.last ?? -1)")
        // The subscribe transport carries AV1: the receiver decoded with dav1d.
        let receiving = b.channel.state.withLock { $0.media }?.subscribe.videoCodecs ?? []
        #expect(receiving == [.av1])
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }
}
