import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// VP9 tracks in egress: recorded (docs/egress.md, "Recordings"), WebM holds one as received (no
/// transcoding) and MP4 transcoded to H.264 from the decoded pictures, both files decoding to the
/// publisher's frame numbers in order; and composed beside a VP8 one.
@Suite(.serialized) struct EgressVP9RecordingTests {
    @Test func aVP9TrackIsRecordedAsReceivedInWebMAndTranscodedInMP4() async throws {
        let server = try EgressTestServer()
        let peer = EgressPeer(preferredVideoCodec: .vp9)
        try await peer.channel.join(url: server.url, token: server.token(uid: "alice", channel: "vp9rec"))
        let (width, height, fps) = (EgressRecordingTests.width, EgressRecordingTests.height, EgressRecordingTests.fps)
        let video = peer.engine.createLocalCustomVideoTrack(desc: "camera_big",
                                                            preset: VideoPreset(width: width, height: height, frameRate: fps, maxBitrate: 400_000))
        try await peer.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == "vp9")
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: width, height: height, fps: fps)
        defer { pusher.stop() }

        let webm = try await EgressRecordingTests.start(server, ["channel": "vp9rec", "uid": "alice", "desc": "camera_big"])
        let mp4 = try await EgressRecordingTests.start(server, ["channel": "vp9rec", "uid": "alice", "desc": "camera_big", "format": "mp4"])
        try await Task.sleep(for: .seconds(5))
        for (recording, codec) in [(webm, "vp9"), (mp4, "h264")] {
            let finished = try await EgressRecordingTests.stop(server, recording)
            #expect(finished["status"] as? String == "finished", "\(finished)")
            let file = server.recordings + "/" + (finished["file"] as? String ?? "")
            let probe = try await offPool { try MediaProbe(file) }
            let decoded = try await offPool { try DecodedMediaFile(url: file) }
            #expect(probe.codecs == [codec], "\(file): \(probe)")
            let stream = decoded.streams.first { $0.isVideo }
            #expect(stream?.width == width && stream?.height == height, "\(file): \(String(describing: stream))")
            let gaps = frameGaps(decoded.frameNumbers)
            #expect(gaps.ordered && decoded.frameNumbers.count > 3 * fps, "\(file): frame numbers \(decoded.frameNumbers)")
            #expect(Double(gaps.missing) < 0.1 * Double(decoded.frameNumbers.count), "\(file): missing \(gaps.missing) of \(decoded.frameNumbers.count)")
        }
        await peer.channel.leave()
        await server.stop()
    }

    @Test func aCompositeShowsAVP9BotBesideAVP8One() async throws {
        let server = try EgressTestServer()
        let viewer = EgressPeer()
        let tiles = TileReader(tiles: [(x: 0, y: 90, width: 320, height: 180), (x: 320, y: 90, width: 320, height: 180)])
        let composite = CompositeViewer(uid: "mcu", tiles: tiles)
        viewer.channel.delegates.add(delegate: composite)
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "vp9mix"))
        // Join order is tile order: the VP9 bot first.
        let vp9 = try BotProcess(url: server.url, channel: "vp9mix", uid: "vp9bot", patternStart: 0, extra: ["--video-codec", "vp9"])
        try await viewer.events.wait(for: "track+ vp9bot camera_big")
        let vp8 = try BotProcess(url: server.url, channel: "vp9mix", uid: "vp8bot", patternStart: 100_000)
        try await viewer.events.wait(for: "track+ vp8bot camera_big")
        #expect(viewer.channel.remoteTrack(uid: "vp9bot", desc: "camera_big")?.info?.codec?.lowercased() == "vp9")

        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": "vp9mix", "uid": "mcu", "width": 640, "height": 360, "frame_rate": 15])
        #expect(status == 200, "\(json)")
        try await eventually("frames in both tiles (read \((0..<2).map { tiles.numbers(tile: $0).count }))") {
            (0..<2).allSatisfy { tiles.numbers(tile: $0).count >= 10 }
        }
        for tile in 0..<2 {
            let numbers = tiles.numbers(tile: tile)
            #expect(numbers.allSatisfy { $0 / 100_000 == tile }, "tile \(tile): \(numbers.prefix(5))")
            #expect(nonDecreasing(numbers) && numbers.last! > numbers.first!, "tile \(tile) advances: \(numbers.prefix(5))…")
        }
        await vp9.stop()
        await vp8.stop()
        await viewer.channel.leave()
        await server.stop()
    }
}
