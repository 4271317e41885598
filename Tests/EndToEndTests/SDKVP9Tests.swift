import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// VP9 between SDK engines through the real server: a publisher that prefers VP9 sends its
/// two-layer track as one scalable stream (libvpx SVC, `L2T3_KEY`, RFC 9628 descriptors with the
/// SS), the server forwards it, and a subscriber with the default preference decodes it (frame
/// numbers in the pixels) on both spatial layers.
@Suite(.serialized) struct SDKVP9Tests {
    @Test func aVP9SVCPublicationIsDecodedInOrderOnBothLayers() async throws {
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
        let receiving = b.channel.media?.subscribe.videoCodecs ?? []
        #expect(receiving == [.vp9])

        // SVC: the lower spatial layer (half the size) after a switch, from the next picture.
        try await b.channel.switchLayer(remote, to: .cameraSmall)
        try await b.events.wait(for: "layer camera_small")
        try await eventually("small VP9 frames decoded") { subscriber.collector.sizes.suffix(10).allSatisfy { $0 == (320, 180) } }
        let after = subscriber.collector.numbers
        #expect(after == after.sorted())
        #expect((after.last ?? 0) > (numbers.last ?? 0))
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    /// The two-layer VP9 track is one stream (one sender, no rids): the server gives one subscriber
    /// the big spatial layer and one the small, each decodes its own size with the pusher's frame
    /// numbers in order, and the small one is sent fewer bytes.
    @Test func aVP9SVCPublicationGivesEachSubscriberItsLayer() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(preferredVideoCodec: .vp9)
        let big = SDKPeer(preferredVideoCodec: .vp8), small = SDKPeer(preferredVideoCodec: .vp8)
        let bigSubscriber = SDKAutoSubscriber(layer: .cameraBig), smallSubscriber = SDKAutoSubscriber(layer: .cameraSmall)
        big.channel.delegates.add(delegate: bigSubscriber)
        small.channel.delegates.add(delegate: smallSubscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "vp9svc"))
        try await big.channel.join(url: server.url, token: server.token(uid: "big", channel: "vp9svc"))
        try await small.channel.join(url: server.url, token: server.token(uid: "small", channel: "vp9svc"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 1_000_000),
                                                         simulcast: true)
        try await a.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == "vp9")
        try await big.events.wait(for: "track+ a camera_big")
        try await small.events.wait(for: "track+ a camera_big")
        let senders = a.channel.media.map { media in media.publish.senders(mid: media.publish.mid(of: video) ?? "") } ?? []
        #expect(senders.count == 1)
        #expect(small.channel.remoteTrack(uid: "a", desc: "camera_big")?.info?.layers.map(\.desc) == ["camera_big", "camera_small"])

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
        print("SDKVP9Tests SVC: big sizes \(bigSizes), \(bigNumbers.count) numbers \(bigNumbers.first ?? -1)...\(bigNumbers.last ?? -1) missing \(frameGaps(bigNumbers).missing); "
              + "small sizes \(smallSizes), \(smallNumbers.count) numbers \(smallNumbers.first ?? -1)...\(smallNumbers.last ?? -1) missing \(frameGaps(smallNumbers).missing)")
        print("SDKVP9Tests SVC: forwarded to big \(bigStats?.packetsReceived ?? -1) packets / \(bigStats?.bytesReceived ?? -1) bytes, "
              + "to small \(smallStats?.packetsReceived ?? -1) packets / \(smallStats?.bytesReceived ?? -1) bytes")
        #expect(decodedBig && decodedSmall)
        #expect(smallSizes.keys.allSatisfy { $0 == "320x180" }, "small \(smallSizes)")
        #expect(bigSizes.keys.allSatisfy { $0 == "640x360" }, "big \(bigSizes)")
        for numbers in [bigNumbers, smallNumbers] {
            #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
            #expect(frameGaps(numbers).missing <= 5, "missing \(frameGaps(numbers).missing) in \(numbers.first ?? -1)...\(numbers.last ?? -1)")
        }
        #expect(smallNumbers.count >= 30, "the half-size pattern's numbers are read")
        let bigBytes = bigStats?.bytesReceived ?? 0, smallBytes = smallStats?.bytesReceived ?? 0
        #expect(smallBytes > 0 && smallBytes < bigBytes, "bytes big \(bigBytes) small \(smallBytes)")
        await a.channel.leave()
        await big.channel.leave()
        await small.channel.leave()
        await server.stop()
    }
}
