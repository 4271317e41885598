import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// A WHIP publisher's tracks are recorded and composited as an SDK participant's are (issue 32:
/// "recording and composites apply"; docs/ingress.md): the Swift SDK's `WHIPPublisher` publishes a
/// numbered test pattern and a 440 Hz tone through `/whip/v1/{channel}`, and the files hold them.
@Suite(.serialized) struct EgressWHIPTests {
    @Test func aWHIPPublishersCameraAndMicAreRecordedAndInTheComposite() async throws {
        let server = try EgressTestServer()
        let (width, height, fps) = (EgressRecordingTests.width, EgressRecordingTests.height, EgressRecordingTests.fps)
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "whip.events"), logLevel: .off))
        let whip = try WHIPPublisher(engine: engine)
        let camera = engine.createLocalCustomVideoTrack(desc: "camera_big",
                                                        preset: VideoPreset(width: width, height: height, frameRate: fps, maxBitrate: 400_000))
        let mic = engine.createLocalCustomAudioTrack(desc: "mic")
        try await whip.publish([camera, mic], endpoint: server.url + "/whip/v1/whiprec", token: server.token(uid: "obs", channel: "whiprec"))
        let pusher = try SDKMediaPusher(video: camera, audio: mic, width: width, height: height, fps: fps, toneHz: 440)

        // The WHIP user's tracks as the server lists them (their descriptions come from the session).
        let tracks = try await waitFor(timeout: 20, "obs's two tracks in channel/users") { () -> [[String: Any]]? in
            let (_, json) = try await server.call("/server/v1/channel/users", ["channel": "whiprec"])
            let users = json["users"] as? [[String: Any]] ?? []
            let listed = users.first { $0["uid"] as? String == "obs" }?["tracks"] as? [[String: Any]] ?? []
            return listed.count == 2 ? listed : nil
        }
        let videoDesc = try #require(tracks.first { $0["kind"] as? String == "video" }?["desc"] as? String, "\(tracks)")
        let audioDesc = try #require(tracks.first { $0["kind"] as? String == "audio" }?["desc"] as? String, "\(tracks)")

        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": "whiprec", "uid": "mcu", "width": width, "height": height, "frame_rate": fps])
        #expect(status == 200, "\(json)")
        let video = try await EgressRecordingTests.start(server, ["channel": "whiprec", "uid": "obs", "desc": videoDesc])
        let audio = try await EgressRecordingTests.start(server, ["channel": "whiprec", "uid": "obs", "desc": audioDesc, "format": "mp4"])
        let mix = try await EgressRecordingTests.start(server, ["channel": "whiprec", "kind": "composite", "uid": "mcu"])
        try await Task.sleep(for: .seconds(6))
        let finished = try await EgressRecordingTests.stopAndRead(server, [video, audio, mix])
        pusher.stop()

        for (record, probe, decoded) in finished {
            let numbers = decoded.frameNumbers
            switch record["recording_id"] as? String {
            case video["recording_id"] as? String:
                #expect(probe.codecs == ["vp8"])
                let gaps = frameGaps(numbers)
                #expect(numbers.count >= 4 * fps && gaps.ordered, "WHIP camera recording: \(numbers.count) frames, in order: \(gaps.ordered)")
                #expect(Double(gaps.missing) < 0.1 * Double(numbers.count), "missing \(gaps.missing) of \(numbers.count)")
            case audio["recording_id"] as? String:
                #expect(probe.codecs == ["aac"])
                let hz = try #require(FrequencyEstimator.zeroCrossingFrequency(Array(decoded.audio.suffix(48_000)), sampleRate: decoded.sampleRate))
                #expect(abs(hz - 440) < 10, "WHIP mic recording: tone at \(hz) Hz")
            default:
                #expect(probe.codecs.sorted() == ["opus", "vp8"])
                #expect(nonDecreasing(numbers) && (numbers.last ?? 0) > (numbers.first ?? 0) + 2 * fps,
                        "the composite shows the WHIP camera's frames \(numbers.first ?? -1)…\(numbers.last ?? -1)")
                let hz = try #require(FrequencyEstimator.zeroCrossingFrequency(Array(decoded.audio.suffix(48_000)), sampleRate: decoded.sampleRate))
                #expect(abs(hz - 440) < 10, "the composite mixes the WHIP mic: tone at \(hz) Hz")
            }
            print("WHIP \(record["kind"] as? String ?? "?") recording: \(probe.codecs), \(numbers.count) frames \(numbers.first ?? -1)…\(numbers.last ?? -1)")
        }
        await whip.stop()
        await engine.destroy()
        await server.stop()
    }
}
