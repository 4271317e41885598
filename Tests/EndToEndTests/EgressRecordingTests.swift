import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Recordings end to end: what the files hold, checked with ffprobe and by decoding them.
@Suite(.serialized) struct EgressRecordingTests {
    static let width = 320, height = 180, fps = 15

    /// A publisher of a 320×180 test pattern at 15 fps and a tone.
    static func publisher(_ server: EgressTestServer, uid: String, channel: String, firstNumber: Int = 0, toneHz: Double = 440)
        async throws -> (EgressPeer, SDKMediaPusher) {
        let peer = EgressPeer()
        try await peer.channel.join(url: server.url, token: server.token(uid: uid, channel: channel))
        let video = peer.engine.createLocalCustomVideoTrack(desc: "camera_big",
                                                            preset: VideoPreset(width: width, height: height, frameRate: fps, maxBitrate: 400_000))
        let audio = peer.engine.createLocalCustomAudioTrack(desc: "mic")
        try await peer.channel.publishLocalTrack(video)
        try await peer.channel.publishLocalTrack(audio)
        let pusher = try SDKMediaPusher(video: video, audio: audio, width: width, height: height, fps: fps, toneHz: toneHz, firstNumber: firstNumber)
        return (peer, pusher)
    }

    /// A publisher of a 320×180 test pattern at 15 fps in `codec` (camera only), the track's codec checked.
    /// A camera publishing numbered frames; `simulcast: false` publishes one layer (a camera
    /// description otherwise gets two: simulcast, or one scalable AV1 or VP9 stream).
    static func camera(_ server: EgressTestServer, uid: String, channel: String, codec: VideoCodec, simulcast: Bool = true)
        async throws -> (EgressPeer, SDKMediaPusher) {
        let peer = EgressPeer(preferredVideoCodec: codec)
        try await peer.channel.join(url: server.url, token: server.token(uid: uid, channel: channel))
        let video = peer.engine.createLocalCustomVideoTrack(desc: "camera_big",
                                                            preset: VideoPreset(width: width, height: height, frameRate: fps, maxBitrate: 400_000),
                                                            simulcast: simulcast)
        try await peer.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == codec.rawValue.lowercased())
        return (peer, try SDKMediaPusher(video: video, audio: nil, width: width, height: height, fps: fps))
    }

    static func start(_ server: EgressTestServer, _ body: [String: Any]) async throws -> [String: Any] {
        let (status, json) = try await server.call("/server/v1/channel/record/start", body)
        #expect(status == 200, "\(json)")
        return try #require(json["recording"] as? [String: Any])
    }

    static func stop(_ server: EgressTestServer, _ recording: [String: Any]) async throws -> [String: Any] {
        let (status, json) = try await server.call("/server/v1/channel/record/stop", ["recording_id": recording["recording_id"] as? String ?? ""])
        #expect(status == 200, "\(json)")
        return try #require(json["recording"] as? [String: Any])
    }

    /// Stops `recordings` one after the other and reads each finished file (checked `finished`).
    static func stopAndRead(_ server: EgressTestServer, _ recordings: [[String: Any]]) async throws
        -> [(record: [String: Any], probe: MediaProbe, decoded: DecodedMediaFile)] {
        var read: [(record: [String: Any], probe: MediaProbe, decoded: DecodedMediaFile)] = []
        for recording in recordings {
            let record = try await stop(server, recording)
            #expect(record["status"] as? String == "finished", "\(record)")
            let file = server.recordings + "/" + (record["file"] as? String ?? "")
            read.append((record, try await offPool { try MediaProbe(file) }, try await offPool { try DecodedMediaFile(url: file) }))
        }
        return read
    }

    @Test func tenSecondsOfATrackAndOfAComposite() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let (publisher, pusher) = try await Self.publisher(server, uid: "alice", channel: "rec")
        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": "rec", "uid": "mcu", "width": 320, "height": 180, "frame_rate": 15])
        #expect(status == 200, "\(json)")
        let video = try await Self.start(server, ["channel": "rec", "uid": "alice", "desc": "camera_big"])
        let audio = try await Self.start(server, ["channel": "rec", "uid": "alice", "desc": "mic", "format": "mp4"])
        let mix = try await Self.start(server, ["channel": "rec", "kind": "composite", "uid": "mcu"])
        #expect(video["status"] as? String == "recording" && video["format"] as? String == "webm")
        try await Task.sleep(for: .seconds(10))
        var finished: [[String: Any]] = []
        for recording in [video, audio, mix] { finished.append(try await Self.stop(server, recording)) }
        pusher.stop()

        for record in finished {
            #expect(record["status"] as? String == "finished", "\(record)")
            let file = server.recordings + "/" + (record["file"] as? String ?? "")
            let probe = try await offPool { try MediaProbe(file) }
            let decoded = try await offPool { try DecodedMediaFile(url: file) }
            let seconds = Double(record["duration_ms"] as? Int ?? 0) / 1_000
            let duration = try #require(probe.duration, "a finished file states its duration")
            // Which of the three fell short, and when its first media came (a late start under load).
            #expect(seconds > 8 && abs(duration - seconds) < 0.5,
                    "\(record["kind"] ?? "?") \(record["format"] ?? "?"): file \(duration) s, reported \(seconds) s, started_at \(record["started_at"] ?? "?")")
            if let frames = probe.videoFrames {
                #expect(frames == decoded.videoTimesUs.count)
                #expect(abs(Double(frames) / duration - Double(Self.fps)) < 2, "\(frames) frames in \(duration) s")
                let numbers = decoded.frameNumbers, kind = record["kind"] as? String ?? "?"
                if kind == "composite" {
                    // A composite resamples its input to its own clock (the latest input frame at
                    // each tick): it shows a frame twice or skips one when the input's frames and
                    // its ticks drift apart, so it is checked for following alice's frames through
                    // the file (their numbers advance at her frame rate), not for holding each.
                    let span = Double((numbers.last ?? 0) - (numbers.first ?? 0) + 1)
                    #expect(nonDecreasing(numbers), "composite frame numbers in order")
                    #expect(abs(span / duration - Double(Self.fps)) < 2,
                            "the composite shows alice's frames \(numbers.first ?? 0)…\(numbers.last ?? 0) in \(duration) s")
                } else {
                    let gaps = frameGaps(numbers)
                    #expect(gaps.ordered, "track recording: frame numbers in order")
                    #expect(Double(gaps.missing) < 0.1 * Double(numbers.count), "track recording: missing \(gaps.missing) of \(numbers.count)")
                }
            }
            switch record["recording_id"] as? String {
            case video["recording_id"] as? String:
                #expect(probe.codecs == ["vp8"])
            case audio["recording_id"] as? String:
                #expect(probe.codecs == ["aac"])
                let hz = try #require(FrequencyEstimator.zeroCrossingFrequency(Array(decoded.audio.suffix(48_000)), sampleRate: decoded.sampleRate))
                #expect(abs(hz - 440) < 10, "tone at \(hz) Hz")
            default:
                #expect(probe.codecs.sorted() == ["opus", "vp8"])
                #expect(decoded.frameNumbers.last! > decoded.frameNumbers.first!, "the composite shows alice's frames")
            }
        }
        let (_, list) = try await server.call("/server/v1/channel/record/list", ["channel": "rec"])
        #expect((list["recordings"] as? [[String: Any]])?.count == 3)

        // The backend heard of each, in the order they stopped, with the final figures the API shows.
        let finishedHooks = try await hooks.waitFor(3, of: "recording_finished")
        #expect(finishedHooks.map { $0.json["data.recording_id"] } == finished.map { $0["recording_id"] as? String })
        for (hook, record) in zip(finishedHooks, finished) {
            #expect(hook.signatureValid && hook.json["channel"] == "rec")
            for field in ["status", "kind", "format", "uid", "file", "duration_ms", "size_bytes", "started_at", "ended_at"] {
                #expect(hook.json["data.\(field)"] == record[field].map { "\($0)" }, "\(field): \(hook.json) vs \(record)")
            }
        }
        let sequences = hooks.deliveries.filter { $0.json["channel"] == "rec" }.map(\.sequence)
        #expect(sequences == Array(1...sequences.count), "per-channel sequence in arrival order: \(sequences)")
        await publisher.channel.leave()
        await server.stop()
        await hooks.shutdown()
    }

    /// The worker's idle timer (a one-shot on `TimerQueue`): a recording whose source stays away
    /// for its `idle_timeout` ends by itself, not before, with the file of what arrived.
    @Test func aRecordingWhoseSourceStaysAwayEndsAfterItsIdleTimeout() async throws {
        let server = try EgressTestServer()
        let (publisher, pusher) = try await Self.publisher(server, uid: "alice", channel: "idle")
        let recording = try await Self.start(server, ["channel": "idle", "uid": "alice", "desc": "camera_big", "idle_timeout": 5])
        try await Task.sleep(for: .seconds(2))
        pusher.stop()
        let left = Date()
        await publisher.channel.leave()
        func current() async throws -> [String: Any]? {
            let (_, json) = try await server.call("/server/v1/channel/record/list", ["channel": "idle"])
            return (json["recordings"] as? [[String: Any]])?.first { $0["recording_id"] as? String == recording["recording_id"] as? String }
        }
        try await Task.sleep(for: .seconds(3))
        #expect(try await current()?["status"] as? String == "recording", "ended before its idle timeout")
        let ended = try await waitFor(timeout: 30, "the recording to end") { () async throws -> [String: Any]? in
            guard let r = try await current(), r["status"] as? String != "recording" else { return nil }
            return r
        }
        let after = Date().timeIntervalSince(left)
        #expect(ended["status"] as? String == "finished", "\(ended)")
        #expect(after >= 5 && after < 12, "ended \(after) s after the source left, for an idle timeout of 5 s")
        await server.stop()
    }

    @Test func aPublisherWhoComesBackLeavesNoGapBeyondItsAbsence() async throws {
        let server = try EgressTestServer()
        var (publisher, pusher) = try await Self.publisher(server, uid: "alice", channel: "gap")
        let recording = try await Self.start(server, ["channel": "gap", "uid": "alice", "desc": "camera_big"])
        try await Task.sleep(for: .seconds(3))
        // Alice drops out for two seconds and comes back: a new session, a new track.
        pusher.stop()
        let left = Date()
        await publisher.channel.leave()
        try await Task.sleep(for: .seconds(2))
        (publisher, pusher) = try await Self.publisher(server, uid: "alice", channel: "gap", firstNumber: 10_000)
        let outage = Date().timeIntervalSince(left)
        try await Task.sleep(for: .seconds(3))
        let finished = try await Self.stop(server, recording)
        pusher.stop()
        #expect(finished["status"] as? String == "finished", "\(finished)")

        let file = server.recordings + "/" + (finished["file"] as? String ?? "")
        let decoded = try await offPool { try DecodedMediaFile(url: file) }
        let before = zip(decoded.frameNumbers, decoded.numberedTimesUs).filter { $0.0 < 10_000 }
        let after = zip(decoded.frameNumbers, decoded.numberedTimesUs).filter { $0.0 >= 10_000 }
        #expect(before.count > 30 && after.count > 20, "\(before.count) frames before, \(after.count) after")
        let gap = Double((after.first?.1 ?? 0) - (before.last?.1 ?? 0)) / 1e6
        #expect(gap >= outage - 0.3 && gap <= outage + 1.0, "gap \(gap) s for an absence of \(outage) s")
        #expect(frameGaps(before.map(\.0)).missing <= 3 && frameGaps(after.map(\.0)).missing <= 3)
        await publisher.channel.leave()
        await server.stop()
    }
}
