import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// A VP9 track recorded (docs/egress.md, "Recordings"): WebM holds it as received (no transcoding),
/// MP4 holds it transcoded to H.264 from the decoded pictures; both files decode to the
/// publisher's frame numbers in order.
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
}
