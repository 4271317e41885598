import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// An H.264 track recorded (docs/egress.md, "Recordings"): an MP4 holds it as received, through
/// libavformat with no transcoding; WebM cannot hold H.264, so a WebM recording of it is refused
/// with `invalid_parameter` and nothing else is affected.
@Suite(.serialized) struct EgressH264RecordingTests {
    @Test func anH264TrackIsRecordedAsReceivedInMP4AndRefusedInWebM() async throws {
        let server = try EgressTestServer()
        let fps = EgressRecordingTests.fps
        let (peer, pusher) = try await EgressRecordingTests.camera(server, uid: "alice", channel: "h264rec", codec: .h264)
        defer { pusher.stop() }

        let record = "/server/v1/channel/record/start"
        let (status, refusal) = try await server.call(record, ["channel": "h264rec", "uid": "alice", "desc": "camera_big"])
        #expect(status == 400 && refusal["code"] as? Int == 40002, "\(refusal)")
        #expect((refusal["message"] as? String)?.contains("mp4") == true, "the refusal says what to do: \(refusal)")

        let recording = try await EgressRecordingTests.start(server, ["channel": "h264rec", "uid": "alice", "desc": "camera_big", "format": "mp4"])
        try await Task.sleep(for: .seconds(5))
        let finished = try await EgressRecordingTests.stop(server, recording)
        #expect(finished["status"] as? String == "finished", "\(finished)")
        let file = server.recordings + "/" + (finished["file"] as? String ?? "")
        let probe = try await offPool { try MediaProbe(file) }
        let decoded = try await offPool { try DecodedMediaFile(url: file) }
        #expect(probe.codecs == ["h264"])
        #expect(probe.videoFrames == decoded.videoTimesUs.count && decoded.videoTimesUs.count > 3 * fps, "\(probe)")
        let gaps = frameGaps(decoded.frameNumbers)
        #expect(gaps.ordered && decoded.frameNumbers.count > 3 * fps, "frame numbers \(decoded.frameNumbers)")
        #expect(Double(gaps.missing) < 0.1 * Double(decoded.frameNumbers.count), "missing \(gaps.missing) of \(decoded.frameNumbers.count)")
        // As received: the publisher's OpenH264 bitstream, not a libx264 transcode (x264 writes
        // its version in an SEI message of the first key frame, "x264 - core …").
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(bytes.range(of: Data("x264 - core".utf8)) == nil, "the file was transcoded by libx264")
        await peer.channel.leave()
        await server.stop()
    }
}
