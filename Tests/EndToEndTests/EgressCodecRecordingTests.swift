import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// VP9 and AV1 tracks in egress (docs/egress.md, "Recordings"): WebM holds either as received (no
/// transcoding); MP4 holds AV1 as received and VP9 transcoded to H.264 from the decoded pictures.
/// Every file holds the codec at the publisher's size, ffprobe counts as many frames as decode, and
/// they decode to the publisher's frame numbers in order. A composite shows a bot of either codec
/// beside a VP8 one.
@Suite(.serialized) struct EgressCodecRecordingTests {
    @Test(arguments: [("vp9", "h264"), ("av1", "av1")])
    func aTrackIsRecordedInWebMAndMP4(webmCodec: String, mp4Codec: String) async throws {
        let codec = try #require(VideoCodec(encodingName: webmCodec))
        let server = try EgressTestServer()
        let channel = "rec" + webmCodec
        // A two-layer camera: one L2T3_KEY stream in either codec. The WebM of VP9 holds each
        // picture as its top layer shows it (docs/egress.md, "VP9 with spatial layers").
        let (peer, pusher) = try await EgressRecordingTests.camera(server, uid: "alice", channel: channel, codec: codec)
        defer { pusher.stop() }
        let (width, height, fps) = (EgressRecordingTests.width, EgressRecordingTests.height, EgressRecordingTests.fps)

        let webm = try await EgressRecordingTests.start(server, ["channel": channel, "uid": "alice", "desc": "camera_big"])
        let mp4 = try await EgressRecordingTests.start(server, ["channel": channel, "uid": "alice", "desc": "camera_big", "format": "mp4"])
        try await Task.sleep(for: .seconds(5))
        for (recording, expected) in [(webm, webmCodec), (mp4, mp4Codec)] {
            let finished = try await EgressRecordingTests.stop(server, recording)
            #expect(finished["status"] as? String == "finished", "\(finished)")
            let file = server.recordings + "/" + (finished["file"] as? String ?? "")
            let probe = try await offPool { try MediaProbe(file) }
            let decoded = try await offPool { try DecodedMediaFile(url: file) }
            let numbers = decoded.frameNumbers
            print("\(webmCodec) recording \((file as NSString).lastPathComponent): ffprobe \(probe.codecs), \(probe.videoFrames ?? -1) frames; "
                  + "\(numbers.count) numbered frames decoded, numbers \(numbers.first ?? -1)…\(numbers.last ?? -1) "
                  + "(\((numbers.last ?? 0) - (numbers.first ?? 0) + 1) sent in that span)")
            #expect(probe.codecs == [expected], "\(file): \(probe)")
            let stream = decoded.streams.first { $0.isVideo }
            #expect(stream?.codecName == expected && stream?.width == width && stream?.height == height, "\(file): \(String(describing: stream))")
            #expect(probe.videoFrames == decoded.videoTimesUs.count, "\(file): ffprobe counts \(String(describing: probe.videoFrames)), \(decoded.videoTimesUs.count) decode")
            // One frame per picture at the top layer's size: the last two seconds' frames all the
            // top layer's (the recorder may start on the lower layer, docs/egress.md), and the
            // numbers (below) say none is shown twice or left out.
            let lastFrames = decoded.videoFrameSizes.suffix(2 * fps)
            #expect(lastFrames.count == 2 * fps && Set(lastFrames) == ["\(width)x\(height)"], "\(file): sizes \(Set(decoded.videoFrameSizes))")
            let gaps = frameGaps(numbers)
            #expect(gaps.ordered && numbers.count > 3 * fps, "\(file): frame numbers \(numbers)")
            #expect(Double(gaps.missing) < 0.1 * Double(numbers.count), "\(file): missing \(gaps.missing) of \(numbers.count)")
        }
        await peer.channel.leave()
        await server.stop()
    }

    @Test(arguments: ["vp9", "av1"])
    func aCompositeShowsABotBesideAVP8One(codec: String) async throws {
        let server = try EgressTestServer()
        let channel = codec + "mix"
        let viewer = EgressPeer()
        let tiles = TileReader(tiles: [(x: 0, y: 90, width: 320, height: 180), (x: 320, y: 90, width: 320, height: 180)])
        let composite = CompositeViewer(uid: "mcu", tiles: tiles)
        viewer.channel.delegates.add(delegate: composite)
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: channel))
        // Join order is tile order: the bot in `codec` first.
        let bot = try BotProcess(url: server.url, channel: channel, uid: "bot", patternStart: 0, extra: ["--video-codec", codec])
        try await viewer.events.wait(for: "track+ bot camera_big")
        let vp8 = try BotProcess(url: server.url, channel: channel, uid: "vp8bot", patternStart: 100_000)
        try await viewer.events.wait(for: "track+ vp8bot camera_big")
        #expect(viewer.channel.remoteTrack(uid: "bot", desc: "camera_big")?.info?.codec?.lowercased() == codec)

        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": channel, "uid": "mcu", "width": 640, "height": 360, "frame_rate": 15])
        #expect(status == 200, "\(json)")
        try await eventually("frames in both tiles (read \((0..<2).map { tiles.numbers(tile: $0).count }))") {
            (0..<2).allSatisfy { tiles.numbers(tile: $0).count >= 10 }
        }
        for tile in 0..<2 {
            let numbers = tiles.numbers(tile: tile)
            print("\(codec) composite tile \(tile): \(numbers.count) numbered frames, \(numbers.first ?? -1)…\(numbers.last ?? -1)")
            #expect(numbers.allSatisfy { $0 / 100_000 == tile }, "tile \(tile): \(numbers.prefix(5))")
            #expect(nonDecreasing(numbers) && numbers.last! > numbers.first!, "tile \(tile) advances: \(numbers.prefix(5))…")
        }
        await bot.stop()
        await vp8.stop()
        await viewer.channel.leave()
        await server.stop()
    }
}
