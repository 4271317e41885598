import EgressServer
import Foundation
import MediaTestSupport
import Processes
import RTCMedia
import RTCNet
import SRTC
import SRTCProtocol
import SRTCTestSupport
import TestRandom
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// RTMP, SRT and URL ingest end to end (docs/ingress.md): Debian's ffmpeg pushes (or serves) a
/// numbered test pattern and a 440 Hz tone, the ingress worker decodes it and publishes it under
/// the ingress's uid, and an SDK subscriber decodes the frame numbers and hears the tone.
@Suite(.serialized) struct IngressTests {
    /// `frames` test-pattern pictures (their number in the pixels) at 15 fps as a Y4M file ffmpeg reads.
    static func pattern(_ directory: TemporaryDirectory, frames: Int) throws -> String {
        let path = directory.file("pattern.y4m")
        let writer = try Y4MWriter(path: path, width: 320, height: 240, frameRate: 15)
        let generator = try TestPatternGenerator(width: 320, height: 240, frameRate: 15)
        for n in 0..<frames { try writer.write(generator.videoFrame(number: n)) }
        try writer.close()
        return path
    }

    /// x264 settings of the pushes: Constrained Baseline without B-frames (`ultrafast` uses no
    /// CABAC, no B-frames, no 8×8 transform), which the ingress passes through unless asked to transcode.
    static let baseline = ["-preset", "ultrafast", "-profile:v", "baseline", "-tune", "zerolatency"]
    /// Main profile (CABAC) with B-frames, transcoded, and without, passed through as Main.
    static let mainWithBFrames = ["-preset", "veryfast", "-profile:v", "main", "-bf", "2"]
    static let mainWithoutBFrames = ["-preset", "veryfast", "-profile:v", "main", "-bf", "0", "-tune", "zerolatency"]
    /// High (the 8×8 transform) without B-frames: transcoded unless the ingress had `"transcode": false`.
    static let highWithoutBFrames = ["-preset", "veryfast", "-profile:v", "high", "-bf", "0", "-tune", "zerolatency"]

    /// ffmpeg arguments encoding the pattern as H.264 (`x264` settings) and the tone as AAC, in real time.
    static func encode(_ pattern: String, x264: [String] = baseline) -> [String] {
        ["-hide_banner", "-loglevel", "error", "-nostdin", "-re", "-i", pattern, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
         "-shortest", "-map", "0:v", "-map", "1:a", "-c:v", "libx264"] + x264 + ["-crf", "16",
         "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k"]
    }

    /// An ffmpeg pushing `pattern` to `url` in `format` (`flv` for RTMP, `mpegts` for SRT).
    static func push(_ pattern: String, to url: String, format: String, x264: [String] = baseline, log: String) throws -> ChildProcess {
        try ChildProcess("/usr/bin/ffmpeg", encode(pattern, x264: x264) + ["-f", format, url], log: log)
    }

    /// Pushes until the ingress takes the push (its `count`-th `ingress_started`): between two
    /// connections libavformat's listener is closed for a moment, and an encoder that connects then
    /// is refused and must try again, as OBS's reconnect does.
    static func pushUntilTaken(_ pattern: String, to url: String, format: String, x264: [String] = baseline, hooks: TestWebhookReceiver,
                               count: Int, log: String) async throws -> ChildProcess {
        var pusher: ChildProcess?
        var attempts = 0
        try await eventually(timeout: 60, "push \(count) taken after \(attempts) attempts") {
            if let p = pusher, p.isRunning { return hooks.deliveries.filter { $0.event == "ingress_started" }.count >= count }
            if hooks.deliveries.filter({ $0.event == "ingress_started" }).count >= count { return true }
            attempts += 1
            pusher = try? push(pattern, to: url, format: format, x264: x264, log: log + ".\(attempts)")
            return false
        }
        print("ingress: push \(count) taken at attempt \(attempts)")
        return try #require(pusher)
    }

    /// A viewer in `channel` that subscribes to everything and decodes it.
    static func viewer(_ server: EgressTestServer, channel: String) async throws -> (SDKPeer, SDKAutoSubscriber) {
        let peer = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        peer.channel.delegates.add(delegate: subscriber)
        _ = try await peer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: channel))
        return (peer, subscriber)
    }

    static func ingress(_ server: EgressTestServer, _ id: String) async throws -> [String: Any]? {
        let (_, json) = try await server.call("/server/v1/ingress/list", [:])
        return (json["ingresses"] as? [[String: Any]])?.first { $0["ingress_id"] as? String == id }
    }

    /// Waits until the viewer decoded frame numbers past `from` frames in, and returns them.
    static func decoded(_ collector: SDKMediaCollector, after start: Int, atLeast count: Int, _ what: String) async throws -> [Int] {
        try await eventually(timeout: 60, "\(what): \(collector.numbers.count - start) frames decoded") { collector.numbers.count - start >= count }
        return Array(collector.numbers.dropFirst(start))
    }

    /// Connects to `port` on loopback (TCP, or UDP when `datagram`), writes `bytes` and closes
    /// (blocking; small writes).
    static func send(_ bytes: [UInt8], toPort port: UInt16, datagram: Bool = false) {
        let fd = socket(AF_INET, Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { return }
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    @Test func rtmpPushIsPublishedAWrongKeyIsRefusedAKilledPushEndsAndAPushResumesTheIngress() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let pattern = try Self.pattern(server.directory, frames: 300)
        // `transcode` asks for VP8 even though the push is H.264 Baseline (passthrough: the next
        // test), with a `camera_small` simulcast layer.
        let (status, json) = try await server.call("/server/v1/ingress/create",
                                                   ["channel": "show", "uid": "obs", "kind": "rtmp",
                                                    "transcode": ["video_bitrate": 1_500_000, "simulcast": true]])
        let created = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        let id = try #require(created["ingress_id"] as? String)
        let url = try #require(created["url"] as? String)
        let key = try #require(created["stream_key"] as? String)
        #expect(created["status"] as? String == "waiting")
        #expect(url.hasPrefix("rtmp://127.0.0.1:") && url.hasSuffix("/live/" + key), "\(url)")
        let (viewer, subscriber) = try await Self.viewer(server, channel: "show")

        // A push to another stream key is refused: the encoder fails and nobody appears.
        let wrongURL = String(url.dropLast(key.count)) + "not" + String(key.dropFirst(3))
        let wrong = try Self.push(pattern, to: wrongURL, format: "flv", log: server.directory.file("wrong.log"))
        let wrongStatus = await wrong.waitForExit(timeout: 60)
        print("ingress: a push with a wrong key exited with \(wrongStatus)")
        #expect(wrongStatus != 0)
        #expect(try await Self.ingress(server, id)?["sessions"] as? Int == 0)
        #expect(!hooks.deliveries.contains { $0.event == "ingress_started" })
        #expect(!viewer.events.events.contains("user+ obs"))

        // The right key: the viewer sees user obs and decodes the numbers in order, and the tone.
        let first = try await Self.pushUntilTaken(pattern, to: url, format: "flv", hooks: hooks, count: 1, log: server.directory.file("first.log"))
        let started = try await hooks.waitFor("ingress_started")
        #expect((started.data["ingress"] as? [String: Any])?["uid"] as? String == "obs")
        try await viewer.events.wait(for: "user+ obs")
        // The worker's CPU while it decodes H.264 and AAC and encodes VP8 and Opus (a figure, not a check).
        let worker = EgressWorkers.pids().first
        let cpuBefore = worker.flatMap { ProcessStats(pid: $0)?.cpuSeconds }, wallBefore = Date()
        let numbers = try await Self.decoded(subscriber.collector, after: 0, atLeast: 45, "first push")
        if let worker, let cpuBefore, let cpuAfter = ProcessStats(pid: worker)?.cpuSeconds {
            let wall = Date().timeIntervalSince(wallBefore)
            print("ingress: worker CPU \(String(format: "%.2f", (cpuAfter - cpuBefore) / wall)) s per s of 320×240 15 fps H.264/AAC → VP8/Opus over \(String(format: "%.1f", wall)) s")
        }
        let gaps = frameGaps(numbers)
        print("ingress: first push, \(numbers.count) frames decoded, \(numbers.first!)…\(numbers.last!), \(gaps.missing) missing")
        #expect(gaps.ordered, "\(numbers)")
        try await eventually("the tone") { subscriber.collector.toneFrequency.map { abs($0 - 440) < 15 } ?? false }
        let media = try #require(try await Self.ingress(server, id)?["media"] as? [String: Any])
        #expect(media["video_codec"] as? String == "h264" && media["audio_codec"] as? String == "aac", "\(media)")
        #expect(media["width"] as? Int == 320 && media["height"] as? Int == 240)
        #expect(media["video_mode"] as? String == "transcode", "\(media)")
        let camera = viewer.channel.remoteTracks(uid: "obs").first { $0.kind == .video }?.info
        #expect(camera?.codec?.lowercased() == "vp8")
        // `"simulcast": true`: the transcoded camera carries two layers, the small one a quarter of each side.
        let layers = camera?.layers ?? []
        print("ingress: transcoded simulcast layers \(layers.map { "\($0.rid) \($0.width ?? 0)×\($0.height ?? 0)" })")
        #expect(layers.count == 2 && layers.contains { $0.width == 80 && $0.height == 60 }, "\(layers)")

        // Killing the encoder mid-stream ends the push: the webhook, and the user leaves.
        first.signal(SIGKILL)
        _ = await first.waitForExit(timeout: 10)
        let ended = try await hooks.waitFor("ingress_ended")
        print("ingress: ended with \(ended.data["reason"] ?? "?")")
        try await viewer.events.wait(for: "user- obs client_leave")
        #expect(try await Self.ingress(server, id)?["status"] as? String == "waiting")

        // Garbage on the RTMP port is not a push; the listener takes the next encoder.
        var random = SeededRandom(seed: 32)
        let port = try #require(UInt16(url.split(separator: ":")[2].split(separator: "/")[0]))
        for size in [1, 1_537, 4_096] { Self.send(random.bytes(size), toPort: port) }
        // The RTMP C0 byte (version 3) and a C1 of zeros, then nothing: the handshake stalls and closes.
        Self.send([3] + [UInt8](repeating: 0, count: 1_536), toPort: port)

        // Pushing again resumes the same ingress: same uid, a second session, numbers from 0 again.
        let before = subscriber.collector.numbers.count
        let second = try await Self.pushUntilTaken(pattern, to: url, format: "flv", hooks: hooks, count: 2, log: server.directory.file("second.log"))
        let again = try await Self.decoded(subscriber.collector, after: before, atLeast: 45, "second push")
        print("ingress: second push, \(again.count) frames decoded, \(again.first!)…\(again.last!)")
        #expect(frameGaps(again).ordered)
        #expect(again.first! < numbers.last!, "the second push starts over")
        #expect(try await Self.ingress(server, id)?["sessions"] as? Int == 2)

        // The worker dies (kill -9): the push ends with the webhook, the server starts a worker
        // again on the same port and key, and the encoder's next push resumes the ingress.
        // Its own worker (the one with a socket on its port), not one of a suite running beside
        // this one (make test's light pass runs IngressSRTAndURLTests beside it); the first worker
        // if none is found, which the print then says.
        let own = EgressWorkers.pid(boundTo: port)
        print("ingress: the worker with a socket on port \(port): \(own.map { "\($0)" } ?? "none found"), workers \(EgressWorkers.pids())")
        let dead = try #require(own ?? EgressWorkers.pids().first)
        kill(dead, SIGKILL)
        _ = try await hooks.waitFor(2, of: "ingress_ended")
        await second.stop()
        try await eventually("a new worker") { EgressWorkers.pids().contains { $0 != dead } }
        let beforeThird = subscriber.collector.numbers.count
        let third = try await Self.pushUntilTaken(pattern, to: url, format: "flv", hooks: hooks, count: 3, log: server.directory.file("third.log"))
        let resumed = try await Self.decoded(subscriber.collector, after: beforeThird, atLeast: 30, "push after a worker restart")
        #expect(frameGaps(resumed).ordered)
        let afterRestart = try #require(try await Self.ingress(server, id))
        #expect(afterRestart["sessions"] as? Int == 3 && afterRestart["restarts"] as? Int == 1, "\(afterRestart)")

        // Deleting it ends the push and the ingress.
        let (deleteStatus, deleted) = try await server.call("/server/v1/ingress/delete", ["ingress_id": id])
        #expect(deleteStatus == 200 && (deleted["ingress"] as? [String: Any])?["status"] as? String == "ended", "\(deleted)")
        try await viewer.events.wait("obs leaving a third time") { $0.filter { $0.hasPrefix("user- obs ") }.count >= 3 }
        #expect(try await Self.ingress(server, id) == nil)
        await third.stop()
        await viewer.channel.leave()
        await viewer.engine.destroy()
        await server.stop()
        await hooks.shutdown()
    }

    /// docs/ingress.md, "H.264 passthrough": an RTMP push of H.264 with B-frames (Main) is
    /// transcoded to VP8; Main without B-frames goes out as it came, as H.264 Main (the viewer's
    /// track says `profile_level_id` `4d001f`, the ingress `passthrough`), and so does Baseline;
    /// High without B-frames is transcoded (browsers without a High decoder could not play it),
    /// unless the ingress has `"transcode": false`: then it is passed through as High (`64001f`).
    /// The viewer (OpenH264 for H.264) decodes the frame numbers in order from each push. The
    /// worker's CPU for each is printed.
    @Test func rtmpH264WithoutBFramesIsPassedThroughAndWithBFramesIsTranscoded() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let pattern = try Self.pattern(server.directory, frames: 300)
        let (status, json) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "enc", "kind": "rtmp"])
        let created = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        let id = try #require(created["ingress_id"] as? String)
        let url = try #require(created["url"] as? String)
        let (viewer, subscriber) = try await Self.viewer(server, channel: "show")

        /// Decodes 45 frames of push `count`; returns the numbers, the ingress's media, the viewer's track and the pusher.
        /// `ingress`: another ingress of uid `enc` than the first (id, url).
        func measure(_ count: Int, x264: [String], _ what: String, ingress: (id: String, url: String)? = nil)
            async throws -> ([Int], [String: Any], TrackInfo?, ChildProcess) {
            let before = subscriber.collector.numbers.count
            let pusher = try await Self.pushUntilTaken(pattern, to: ingress?.url ?? url, format: "flv", x264: x264, hooks: hooks, count: count,
                                                       log: server.directory.file("\(count).log"))
            try await viewer.events.wait("enc joined \(count) times") { $0.filter { $0 == "user+ enc" }.count >= count }
            let worker = EgressWorkers.pids().first
            let cpuBefore = worker.flatMap { ProcessStats(pid: $0)?.cpuSeconds }, wallBefore = Date()
            let numbers = try await Self.decoded(subscriber.collector, after: before, atLeast: 45, what)
            var cpu: Double?
            if let worker, let cpuBefore, let cpuAfter = ProcessStats(pid: worker)?.cpuSeconds {
                cpu = (cpuAfter - cpuBefore) / Date().timeIntervalSince(wallBefore)
            }
            let media = try #require(try await Self.ingress(server, ingress?.id ?? id)?["media"] as? [String: Any])
            let track = viewer.channel.remoteTracks(uid: "enc").first { $0.kind == .video }?.info
            print("ingress: \(what): \(numbers.count) frames decoded, \(numbers.first!)…\(numbers.last!), \(frameGaps(numbers).missing) missing, "
                  + "video_mode \(media["video_mode"] ?? "?"), track \(track?.codec ?? "?") \(track?.profileLevelID ?? ""), "
                  + "worker CPU \(cpu.map { String(format: "%.3f", $0) } ?? "?") s per s of 320×240 15 fps")
            return (numbers, media, track, pusher)
        }
        func end(_ pusher: ChildProcess) async throws {
            pusher.signal(SIGKILL)
            _ = await pusher.waitForExit(timeout: 10)
            try await viewer.events.wait(for: "user- enc client_leave")
        }

        let (bFrames, bMedia, bTrack, first) = try await measure(1, x264: Self.mainWithBFrames, "Main with B-frames")
        #expect(frameGaps(bFrames).ordered, "\(bFrames)")
        #expect(bMedia["video_codec"] as? String == "h264" && bMedia["video_mode"] as? String == "transcode", "\(bMedia)")
        #expect(bTrack?.codec?.lowercased() == "vp8")
        try await end(first)

        let (main, mainMedia, mainTrack, second) = try await measure(2, x264: Self.mainWithoutBFrames, "Main without B-frames")
        #expect(frameGaps(main).ordered, "\(main)")
        #expect(mainMedia["video_mode"] as? String == "passthrough", "\(mainMedia)")
        // The SFU forwards what the worker sent, H.264 Main, and offered the viewer that profile.
        #expect(mainTrack?.codec?.lowercased() == "h264" && mainTrack?.profileLevelID == "4d001f", "\(String(describing: mainTrack))")
        try await end(second)

        let (baseline, baselineMedia, baselineTrack, third) = try await measure(3, x264: Self.baseline, "Baseline push")
        #expect(frameGaps(baseline).ordered, "\(baseline)")
        #expect(baselineMedia["video_mode"] as? String == "passthrough", "\(baselineMedia)")
        #expect(baselineMedia["width"] as? Int == 320 && baselineMedia["height"] as? Int == 240)
        #expect(baselineTrack?.codec?.lowercased() == "h264" && baselineTrack?.profileLevelID == nil)
        try await eventually("the tone") { subscriber.collector.toneFrequency.map { abs($0 - 440) < 15 } ?? false }
        try await end(third)

        let (high, highMedia, highTrack, fourth) = try await measure(4, x264: Self.highWithoutBFrames, "High without B-frames")
        #expect(frameGaps(high).ordered, "\(high)")
        #expect(highMedia["video_codec"] as? String == "h264" && highMedia["video_mode"] as? String == "transcode", "\(highMedia)")
        #expect(highTrack?.codec?.lowercased() == "vp8")
        try await end(fourth)

        // `"transcode": false` (a new ingress under the same uid): High passes through as
        // `64001f`, which the SDK is offered (its join's video_codecs name High) and decodes.
        _ = try await server.call("/server/v1/ingress/delete", ["ingress_id": id])
        let (passStatus, passJSON) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "enc", "kind": "rtmp", "transcode": false])
        let passing = try #require(passJSON["ingress"] as? [String: Any], "\(passStatus) \(passJSON)")
        let passId = try #require(passing["ingress_id"] as? String)
        let (passed, passedMedia, passedTrack, fifth) = try await measure(5, x264: Self.highWithoutBFrames, "High with \"transcode\": false",
                                                                          ingress: (passId, try #require(passing["url"] as? String)))
        #expect(frameGaps(passed).ordered, "\(passed)")
        #expect(passedMedia["video_mode"] as? String == "passthrough", "\(passedMedia)")
        #expect(passedTrack?.codec?.lowercased() == "h264" && passedTrack?.profileLevelID == "64001f", "\(String(describing: passedTrack))")

        await fifth.stop()
        _ = try await server.call("/server/v1/ingress/delete", ["ingress_id": passId])
        await viewer.channel.leave()
        await viewer.engine.destroy()
        await server.stop()
        await hooks.shutdown()
    }

    /// docs/ingress.md, "A server restart": an RTMP ingress outlives `kill -9` of its server (the
    /// worker dies with it, PR_SET_PDEATHSIG): after the restart on the same data it is listed
    /// with its key and URL, and a push to that URL is published again (frame numbers in order).
    @Test func anRTMPIngressSurvivesKillDashNineOfItsServerAndAPushResumesIt() async throws {
        let server = ServerProcess(arguments: ["--app-id", TestServer.appId, "--app-key", TestServer.appKey])
        defer { server.removeData() }
        try await server.start()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let pattern = try Self.pattern(directory, frames: 600)
        let (status, json) = try await server.call("/server/v1/ingress/create", ["channel": "survivor", "uid": "obs", "kind": "rtmp"])
        let created = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        let id = try #require(created["ingress_id"] as? String)
        let url = try #require(created["url"] as? String)
        let key = try #require(created["stream_key"] as? String)

        await server.kill()
        try await server.start()
        func listed() async throws -> [String: Any]? {
            let (_, list) = try await server.call("/server/v1/ingress/list", [:])
            return (list["ingresses"] as? [[String: Any]])?.first { $0["ingress_id"] as? String == id }
        }
        // The restarted server resumes its ingresses once it listens.
        try await eventually(timeout: 60, "the ingress listed after the restart; log: \(server.log.suffix(3000))") { try await listed() != nil }
        let resumed = try #require(try await listed())
        #expect(resumed["stream_key"] as? String == key && resumed["url"] as? String == url && resumed["uid"] as? String == "obs", "\(resumed)")

        let (_, grant) = try await server.call("/server/v1/channel/grant", ["channel": "survivor", "uid": "viewer"])
        let peer = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        peer.channel.delegates.add(delegate: subscriber)
        _ = try await peer.channel.join(url: server.httpBase, token: try #require(grant["token"] as? String))
        // Pushed until the resumed worker listens and takes it (as an encoder's reconnect would).
        var pusher: ChildProcess?
        var attempts = 0
        try await eventually(timeout: 60, "a push taken by the resumed ingress after \(attempts) attempts") {
            if try await listed()?["status"] as? String == "publishing" { return true }
            if pusher?.isRunning != true {
                attempts += 1
                pusher = try? Self.push(pattern, to: url, format: "flv", log: directory.file("push.\(attempts).log"))
            }
            return false
        }
        defer { pusher?.signal(SIGKILL) }
        try await peer.events.wait(for: "user+ obs")
        let numbers = try await Self.decoded(subscriber.collector, after: 0, atLeast: 30, "push after the restart")
        #expect(frameGaps(numbers).ordered, "\(numbers)")
        print("ingress: resumed after kill -9, push taken at attempt \(attempts), \(numbers.count) frames decoded (\(numbers.first ?? -1)…\(numbers.last ?? -1))")
        #expect(try await listed()?["sessions"] as? Int == 1)
        await pusher?.stop()
        await peer.channel.leave()
        await server.stop()
    }

    /// Makes a `url` ingress of `source` (90 frames of the pattern and the tone) under `uid`: the
    /// whole clip plays, paced by its timestamps (the viewer decodes the numbers in order and hears
    /// the tone), then the user leaves and the ingress ends (`eof`) and is gone from the list.
    static func pull(_ source: String, as uid: String, server: EgressTestServer, hooks: TestWebhookReceiver, viewer: SDKPeer,
                     subscriber: SDKAutoSubscriber) async throws {
        let (status, json) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": uid, "kind": "url", "url": source])
        let created = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        #expect(created["url"] as? String == source && created["stream_key"] == nil)
        try await viewer.events.wait(for: "user+ \(uid)")
        let ended = try await hooks.waitFor("ingress_ended", timeout: 90)
        #expect(ended.data["reason"] as? String == "eof", "\(ended.data)")
        try await viewer.events.wait(for: "user- \(uid) client_leave")
        let numbers = subscriber.collector.numbers
        print("ingress: URL pull of \(source), \(numbers.count) of 90 frames decoded, \(numbers.first ?? -1)…\(numbers.last ?? -1)")
        #expect(frameGaps(numbers).ordered && numbers.count >= 30 && (numbers.last ?? 0) >= 75, "\(numbers)")
        let hz = try #require(subscriber.collector.toneFrequency)
        #expect(abs(hz - 440) < 15, "tone at \(hz) Hz")
        try await eventually("the ingress gone from the list") { try await Self.ingress(server, created["ingress_id"] as! String) == nil }
    }

    /// Glass to glass: the test hands ffmpeg each numbered picture at a known time (Y4M on its
    /// standard input, H.264 with no lookahead, RTMP); the viewer notes when it decodes that
    /// number. Prints the median and 90th percentile of the delay; checks only that frames came.
    @Test func rtmpGlassToGlassDelayIsPrinted() async throws {
        let server = try EgressTestServer()
        let (status, json) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "obs", "kind": "rtmp"])
        let url = try #require((json["ingress"] as? [String: Any])?["url"] as? String, "\(status) \(json)")
        let peer = SDKPeer()
        let subscriber = ArrivalSubscriber()
        let arrivals = subscriber.clock
        peer.channel.delegates.add(delegate: subscriber)
        _ = try await peer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "show"))

        // 600 frames (40 s at 15 fps), each made when it is due.
        let frames = 600
        let stream = try FrameFeeder.pattern(width: 320, height: 240, frameRate: 15)
        let sent = FrameFeeder(frameRate: 15)
        var ffmpeg: ChildProcess?
        try await eventually(timeout: 60, "a push taken") {
            if let f = ffmpeg, f.isRunning { return arrivals.count > 0 }
            let process = try ChildProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i", "-", "-an",
                                                               "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "15",
                                                               "-pix_fmt", "yuv420p", "-f", "flv", url],
                                           pipeInput: true, log: server.directory.file("g2g.log"))
            ffmpeg = process
            sent.start(process, header: stream.header, count: frames, frame: stream.frame)
            return false
        }
        try await eventually(timeout: 90, "frames decoded: \(arrivals.count)") { arrivals.count >= 180 || !(ffmpeg?.isRunning ?? false) }
        sent.stop()
        let delays = arrivals.delays(since: sent.times()).sorted()
        let fromSchedule = arrivals.delays(since: sent.dueTimes()).sorted()
        print("ingress: glass to glass over RTMP (320×240 H.264 Constrained Baseline, passed through, \(delays.count) frames): from the encoder taking the picture "
              + "median \(delays[delays.count / 2]) ms, p90 \(delays[delays.count * 9 / 10]) ms; from its 15 fps capture time "
              + "median \(fromSchedule[fromSchedule.count / 2]) ms, p90 \(fromSchedule[fromSchedule.count * 9 / 10]) ms")
        #expect(delays.count >= 100)
        await ffmpeg?.stop()
        await peer.channel.leave()
        await peer.engine.destroy()
        await server.stop()
    }
}

/// Subscribes to every video track and notes its frames' arrival in an `ArrivalClock`.
// @unchecked Sendable: `clock` is a constant of a Sendable type.
final class ArrivalSubscriber: ChannelDelegate, VideoRenderer, @unchecked Sendable {
    let clock = ArrivalClock()

    func render(frame: VideoFrame) { clock.decoded(frame) }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard let video = channel.remoteTrack(trackId: track.id) as? RemoteVideoTrack else { return }
        video.add(videoRenderer: self)
        Task { try? await channel.subscribe(video, layer: nil) }
    }
}
