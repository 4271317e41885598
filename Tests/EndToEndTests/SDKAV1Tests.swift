import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
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
        let stats = b.channel.media?.subscribe
        print("SDKAV1Tests: decoded \(decoded), sizes \(subscriber.collector.sizes.count) \(subscriber.collector.sizes.suffix(3)), codecs \(stats?.videoCodecs ?? [])")
        #expect(decoded)
        print("SDKAV1Tests: \(numbers.count) frames decoded, \(numbers.first ?? -1)...\(numbers.last ?? -1), missing \(frameGaps(numbers).missing)")
        #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
        #expect(frameGaps(numbers).missing <= 3, "missing \(frameGaps(numbers).missing) in \(numbers.first ?? -1)...\(numbers.last ?? -1)")
        // The subscribe transport carries AV1: the receiver decoded with dav1d.
        let receiving = b.channel.media?.subscribe.videoCodecs ?? []
        #expect(receiving == [.av1])
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    /// A two-layer AV1 track is one stream with spatial and temporal layers (L2T3_KEY, Dependency
    /// Descriptors written by the SDK): the server gives one subscriber the big layer and one the
    /// small, each decodes its own size with the pusher's frame numbers in order, and the small
    /// one is sent fewer packets.
    @Test func anAV1SVCPublicationGivesEachSubscriberItsLayer() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(preferredVideoCodec: .av1)
        let big = SDKPeer(preferredVideoCodec: .vp8), small = SDKPeer(preferredVideoCodec: .vp8)
        let bigSubscriber = SDKAutoSubscriber(layer: .cameraBig), smallSubscriber = SDKAutoSubscriber(layer: .cameraSmall)
        big.channel.delegates.add(delegate: bigSubscriber)
        small.channel.delegates.add(delegate: smallSubscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "av1svc"))
        try await big.channel.join(url: server.url, token: server.token(uid: "big", channel: "av1svc"))
        try await small.channel.join(url: server.url, token: server.token(uid: "small", channel: "av1svc"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 1_000_000),
                                                         simulcast: true)
        try await a.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == "av1")
        try await big.events.wait(for: "track+ a camera_big")
        try await small.events.wait(for: "track+ a camera_big")
        // One stream (no simulcast layers in the offer): one sender.
        let senders = a.channel.media.map { media in media.publish.senders(mid: media.publish.mid(of: video) ?? "") } ?? []
        #expect(senders.count == 1)

        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }
        let decodedBig = await (try? eventually("big layer decoded") { bigSubscriber.collector.sizes.filter { $0 == (640, 360) }.count >= 60 }) != nil
        let decodedSmall = await (try? eventually("small layer decoded") { smallSubscriber.collector.sizes.filter { $0 == (320, 180) }.count >= 60 }) != nil
        pusher.stop()
        let bigNumbers = bigSubscriber.collector.numbers, smallNumbers = smallSubscriber.collector.numbers
        let bigSizes = Dictionary(grouping: bigSubscriber.collector.sizes.map { "\($0.0)x\($0.1)" }, by: { $0 }).mapValues(\.count)
        let smallSizes = Dictionary(grouping: smallSubscriber.collector.sizes.map { "\($0.0)x\($0.1)" }, by: { $0 }).mapValues(\.count)
        let bigStats = big.channel.remoteTrack(uid: "a", desc: "camera_big")?.receiveStatistics
        let smallStats = small.channel.remoteTrack(uid: "a", desc: "camera_big")?.receiveStatistics
        print("SDKAV1Tests SVC: big sizes \(bigSizes), \(bigNumbers.count) numbers \(bigNumbers.first ?? -1)...\(bigNumbers.last ?? -1) missing \(frameGaps(bigNumbers).missing); "
              + "small sizes \(smallSizes), \(smallNumbers.count) numbers \(smallNumbers.first ?? -1)...\(smallNumbers.last ?? -1) missing \(frameGaps(smallNumbers).missing)")
        print("SDKAV1Tests SVC: forwarded to big \(bigStats?.packetsReceived ?? -1) packets / \(bigStats?.bytesReceived ?? -1) bytes, "
              + "to small \(smallStats?.packetsReceived ?? -1) packets / \(smallStats?.bytesReceived ?? -1) bytes")
        #expect(decodedBig && decodedSmall)
        // Each decodes its own layer: the big one 640x360 (a key picture's S0 frame is decoded with
        // its S1 frame, which is shown), the small one never above 320x180.
        #expect(smallSizes.keys.allSatisfy { $0 == "320x180" }, "small \(smallSizes)")
        for numbers in [bigNumbers, smallNumbers] {
            #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
            #expect(frameGaps(numbers).missing <= 5, "missing \(frameGaps(numbers).missing) in \(numbers.first ?? -1)...\(numbers.last ?? -1)")
        }
        #expect(smallNumbers.count >= 30, "the half-size pattern's numbers are read")
        // The server forwarded the small layer's frames alone to the small subscriber.
        let bigBytes = bigStats?.bytesReceived ?? 0, smallBytes = smallStats?.bytesReceived ?? 0
        #expect(smallBytes > 0 && smallBytes < bigBytes, "bytes big \(bigBytes) small \(smallBytes)")
        await a.channel.leave()
        await big.channel.leave()
        await small.channel.leave()
        await server.stop()
    }
}
