import Foundation
import RTCMedia
@testable import SFU
@testable import SRTCCore
import SRTCLab
@testable import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// VP9 and AV1 simulcast from the SDK (`videoScalability: .simulcast`): a two-layer camera goes
/// out as VP8's does, two encodings with rids `h` and `l`, each its own one-layer encoder, not as
/// one `L2T3_KEY` stream. The server takes two encodings; one subscriber on `camera_big` decodes
/// the full size and one on `camera_small` the quarter size, each with the pusher's frame
/// numbers in order; the big one then switches to `camera_small` and goes on decoding.
@Suite(.serialized) struct SDKCodecSimulcastTests {
    /// What the SFU holds of the one video producer: per stream (lowest first) its rid and packets.
    static func producerStreams(_ server: SDKTestServer) async throws -> [(rid: String?, packets: UInt64, codec: String)] {
        var result: [(rid: String?, packets: UInt64, codec: String)] = []
        for worker in server.app.mediaWorkers {
            result += try await worker.sfu.perform { core, _ in
                core.producers.values.filter { $0.kind == .video }.flatMap { producer in
                    producer.streams.map { ($0.rid, $0.statistics.packetsReceived, producer.codec.name.lowercased()) }
                }
            }
        }
        return result
    }

    @Test(arguments: ["vp9", "av1"])
    func aSimulcastCameraGivesEachSubscriberItsEncoding(name: String) async throws {
        let codec = try #require(VideoCodec(encodingName: name))
        let server = try SDKTestServer()
        let a = SDKPeer(preferredVideoCodec: codec, videoScalability: .simulcast)
        let big = SDKPeer(preferredVideoCodec: .vp8), small = SDKPeer(preferredVideoCodec: .vp8)
        let bigSubscriber = SDKAutoSubscriber(layer: .cameraBig), smallSubscriber = SDKAutoSubscriber(layer: .cameraSmall)
        big.channel.delegates.add(delegate: bigSubscriber)
        small.channel.delegates.add(delegate: smallSubscriber)
        let channel = "simulcast-\(name)"
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: channel))
        try await big.channel.join(url: server.url, token: server.token(uid: "big", channel: channel))
        try await small.channel.join(url: server.url, token: server.token(uid: "small", channel: channel))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000))
        try await a.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == name)
        // Announced as VP8 simulcast is: the small layer a quarter of each side.
        #expect(video.info?.layers.map { "\($0.desc) \($0.rid) \($0.width ?? 0)x\($0.height ?? 0)" } == ["camera_big h 640x360", "camera_small l 160x90"])
        // Two senders, one per rid.
        let senders = a.channel.media.map { media in media.publish.senders(mid: media.publish.mid(of: video) ?? "") } ?? []
        #expect(senders.map(\.parameters.rid) == ["h", "l"])
        try await big.events.wait(for: "track+ a camera_big")
        try await small.events.wait(for: "track+ a camera_big")
        #expect(big.channel.remoteTrack(uid: "a", desc: "camera_big")?.info?.codec?.lowercased() == name)

        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }
        let decodedBig = await (try? eventually(timeout: 20, "big encoding decoded") { bigSubscriber.collector.sizes.filter { $0 == (640, 360) }.count >= 60 }) != nil
        let decodedSmall = await (try? eventually(timeout: 20, "small encoding decoded") { smallSubscriber.collector.sizes.filter { $0 == (160, 90) }.count >= 30 }) != nil
        let streams = try await Self.producerStreams(server)
        let encoded = video.sendPipeline.stats
        let bigNumbers = bigSubscriber.collector.numbers, smallNumbers = smallSubscriber.collector.numbers
        let bigSizes = Dictionary(grouping: bigSubscriber.collector.sizes.map { "\($0.0)x\($0.1)" }, by: { $0 }).mapValues(\.count)
        let smallSizes = Dictionary(grouping: smallSubscriber.collector.sizes.map { "\($0.0)x\($0.1)" }, by: { $0 }).mapValues(\.count)
        // The big subscriber switches to the small encoding: the server takes it at its key frame
        // and the SDK's decoder goes on in it, the numbers still rising.
        let remote = try #require(big.channel.remoteTrack(uid: "a", desc: "camera_big") as? RemoteVideoTrack)
        try await big.channel.switchLayer(remote, to: .cameraSmall)
        try await big.events.wait(for: "layer camera_small")
        let switched = await (try? eventually(timeout: 20, "small encoding decoded after the switch") {
            bigSubscriber.collector.sizes.suffix(10).allSatisfy { $0 == (160, 90) }
        }) != nil
        pusher.stop()
        let afterSwitch = bigSubscriber.collector.numbers
        print("SDKCodecSimulcastTests \(name): SFU streams \(streams); encoded per layer \(encoded.framesEncoded); "
              + "big sizes \(bigSizes), \(bigNumbers.count) numbers \(bigNumbers.first ?? -1)...\(bigNumbers.last ?? -1) missing \(frameGaps(bigNumbers).missing); "
              + "small sizes \(smallSizes), \(smallNumbers.count) numbers \(smallNumbers.first ?? -1)...\(smallNumbers.last ?? -1) missing \(frameGaps(smallNumbers).missing)")
        // The SFU took two encodings of the codec, lowest first, both with packets.
        #expect(streams.map(\.rid) == ["l", "h"], "streams \(streams)")
        #expect(streams.allSatisfy { $0.packets > 0 && $0.codec == name }, "streams \(streams)")
        // Each subscriber decoded its own encoding only, with the pusher's numbers in order.
        #expect(decodedBig && decodedSmall)
        #expect(bigSizes.keys.allSatisfy { $0 == "640x360" }, "big \(bigSizes)")
        #expect(smallSizes.keys.allSatisfy { $0 == "160x90" }, "small \(smallSizes)")
        for numbers in [bigNumbers, smallNumbers] {
            #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
        }
        #expect(bigNumbers.count >= 45 && frameGaps(bigNumbers).missing <= 5,
                "big missing \(frameGaps(bigNumbers).missing) in \(bigNumbers.first ?? -1)...\(bigNumbers.last ?? -1)")
        // The small encoding runs at 15 fps: about every other number, none out of order.
        #expect(smallNumbers.count >= 20, "the quarter-size pattern's numbers are read: \(smallNumbers.count)")
        #expect(switched, "after the switch: \(bigSubscriber.collector.sizes.suffix(10))")
        // Not decreasing: the switch may show one capture twice, the big encoding's last picture
        // and the small one's key picture of the same instant (SDKH264Tests' switch check allows it too).
        #expect(afterSwitch == afterSwitch.sorted() && (afterSwitch.last ?? 0) > (bigNumbers.last ?? 0),
                "numbers across the switch: \(afterSwitch.suffix(20))")
        // Decoded in the codec that was sent.
        #expect(big.channel.media?.subscribe.videoCodecs == [codec] && small.channel.media?.subscribe.videoCodecs == [codec])
        await a.channel.leave()
        await big.channel.leave()
        await small.channel.leave()
        await server.stop()
    }
}
