import Foundation
import MediaTestSupport
import Processes
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IngressTests {
    /// docs/ingress.md, "B-frames that start mid-push": an encoder that sends H.264 Main without
    /// B-frames (its SPS says no reordering: the ingress passes it through), then with B-frames.
    /// ffmpeg encodes the pattern's frames 0–149 with `-bf 0` and 150–299 with `-bf 2` as two
    /// MPEG-TS segments (timestamps continuing) and pushes them one after the other over RTMP
    /// with `-c copy`. The worker sees the reordering, re-encodes from there into the same track
    /// (`video_mode` `reencode`), and the viewer, whose OpenH264 shows each picture as it is decoded,
    /// reads the frame numbers of both segments in order, from the one H.264 track it subscribed to.
    @Test func bFramesThatStartMidPushAreReencodedIntoTheSameTrack() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let directory = server.directory
        // The two segments: numbered pictures as Y4M, encoded with a tone as AAC in MPEG-TS.
        var segments: [String] = []
        for (index, (first, x264)) in [(0, Self.mainWithoutBFrames), (150, Self.mainWithBFrames)].enumerated() {
            let y4m = directory.file("part\(index).y4m")
            let writer = try Y4MWriter(path: y4m, width: 320, height: 240, frameRate: 15)
            let generator = try TestPatternGenerator(width: 320, height: 240, frameRate: 15)
            for n in first..<(first + 150) { try writer.write(generator.videoFrame(number: n)) }
            try writer.close()
            let ts = directory.file("part\(index).ts")
            let arguments = Self.encode(y4m, x264: x264).filter { $0 != "-re" } + ["-output_ts_offset", "\(index * 10)", "-f", "mpegts", ts]
            let encoder = try ChildProcess("/usr/bin/ffmpeg", arguments, log: directory.file("encode\(index).log"))
            #expect(await encoder.waitForExit(timeout: 120) == 0)
            segments.append(ts)
        }
        let (status, json) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "enc", "kind": "rtmp"])
        let created = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        let id = try #require(created["ingress_id"] as? String)
        let url = try #require(created["url"] as? String)
        let (viewer, subscriber) = try await Self.viewer(server, channel: "show")

        var pusher: ChildProcess?
        try await eventually(timeout: 60, "the push taken") {
            if let p = pusher, p.isRunning { return hooks.deliveries.contains { $0.event == "ingress_started" } }
            if hooks.deliveries.contains(where: { $0.event == "ingress_started" }) { return true }
            pusher = try? ChildProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                                                          "-i", "concat:" + segments.joined(separator: "|"), "-c", "copy", "-f", "flv", url],
                                      log: directory.file("push.log"))
            return false
        }
        try await viewer.events.wait(for: "user+ enc")
        let started = try #require(try await Self.ingress(server, id)?["media"] as? [String: Any])
        #expect(started["video_mode"] as? String == "passthrough", "\(started)")

        // The second segment's pictures, decoded in order after the switch.
        try await eventually(timeout: 60, "frames of the B-frame segment: \(subscriber.collector.numbers.filter { $0 >= 150 }.count)") {
            subscriber.collector.numbers.filter { $0 >= 150 }.count >= 60
        }
        let numbers = subscriber.collector.numbers
        let after = numbers.filter { $0 >= 150 }
        print("ingress: B-frames mid-push, \(numbers.count) frames decoded, \(numbers.first ?? -1)…\(numbers.last ?? -1), "
              + "\(frameGaps(numbers).missing) missing; after the switch \(after.first ?? -1)…\(after.last ?? -1), \(frameGaps(after).missing) missing")
        #expect(frameGaps(numbers).ordered, "\(numbers)")
        #expect(numbers.contains { $0 < 150 } && after.count >= 60)
        let media = try #require(try await Self.ingress(server, id)?["media"] as? [String: Any])
        #expect(media["video_mode"] as? String == "reencode", "\(media)")
        // One track for the whole push: the switch re-published nothing.
        let videoTracks = viewer.events.tracksAdded.filter { $0.kind == .video }
        #expect(videoTracks.count == 1 && videoTracks.first?.codec?.lowercased() == "h264", "\(videoTracks)")
        #expect(!viewer.events.events.contains { $0.hasPrefix("track- enc") }, "\(viewer.events.events)")
        #expect(hooks.deliveries.filter { $0.event == "ingress_started" }.count == 1)

        await pusher?.stop()
        _ = try await server.call("/server/v1/ingress/delete", ["ingress_id": id])
        await viewer.channel.leave()
        await viewer.engine.destroy()
        await server.stop()
        await hooks.shutdown()
    }
}
