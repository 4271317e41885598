import Foundation
import RTCNet
import RTCMedia
import SRTC
import SRTCProtocol

/// `srtc join`: joins a channel as a bot on the SDK, publishes a test pattern / tone or files,
/// subscribes to everything and records it, printing receive statistics while it runs.
enum JoinCommand {
    static let help = """
    usage: srtc join --url URL (--token TOKEN | --channel C --uid U [--app-id ID --app-key KEY])
                     [--video pattern|none|FILE.y4m] [--audio tone|none|FILE.wav] [--desc camera_big]
                     [--size 640x360] [--fps 30] [--pattern-start 0] [--tone-hz 440] [--record DIR] [--layer camera_big|camera_small]
                     [--no-subscribe] [--echo-data] [--duration SECONDS] [--stats-interval SECONDS] [--nickname NAME] [--verbose]
                     [--ice-transport-policy all|relay] [--video-codec vp8|vp9|h264|av1] [--ca-file CA.pem] [--e2ee-key PASSPHRASE]
                     [--video-scalability svc|simulcast] [--red on|off]

    Joins the channel on the server at --url (http(s)://host:7880; the signaling WebSocket is
    ws(s)://host:7880/rtc/v1/ws) with --token, or with a token granted on the spot with the app's
    credentials (--app-id/--app-key or $SRTC_APP_ID/$SRTC_APP_KEY; never ship those in a client).

    Publishing (default: a test pattern and a tone):
      --video pattern      frames whose pixels carry their frame number (from --pattern-start), at --size and --fps
      --video FILE.y4m     the file's frames, looped
      --audio tone         a sine tone of --tone-hz (default 440 Hz)
      --audio FILE.wav     the file's audio, looped
      --desc D             the video track's description (camera_big sends two simulcast layers)
    Receiving: every remote track is subscribed (video at --layer) and, with --record DIR, written
    to DIR/<uid>-<desc>-<track>.y4m / .wav. Statistics print every --stats-interval seconds (2),
    with the frame number of the last picture when it is another bot's test pattern.
    Data messages print as they arrive; --echo-data sends each back to its sender (same channel, topic;
    an end-to-end encrypted one decrypted with --e2ee-key and sent back encrypted).
    Runs for --duration seconds, or until interrupted (Ctrl-C), then leaves.
    --ice-transport-policy relay sends all media through the TURN server the join response names.
    --video-codec h264 publishes video in H.264 (OpenH264), vp9 in VP9 (libvpx, profile 0), av1 in AV1
    (libaom real-time, Main profile, with the Dependency Descriptor) instead of VP8; a camera_big in
    VP9 or AV1 is one L2T3_KEY stream (two spatial layers), another desc one layer; all four are
    received (AV1 decoded by dav1d).
    --video-scalability simulcast sends a camera_big in VP9 or AV1 as two simulcast encodings (rids h
      and l, each one layer) as VP8 does, instead of one L2T3_KEY stream (svc, the default).
    --ca-file CA.pem trusts the CA certificates in that file instead of the system's for an https:// server.
    --e2ee-key PASSPHRASE encrypts what it publishes end to end and decrypts what it receives with the
      channel's shared passphrase (docs/e2ee.md; VP8, VP9, H.264, AV1 and Opus). Media it cannot decrypt is not recorded,
      and a line says whose and why. Without --e2ee-key, a track marked end-to-end encrypted is subscribed (its
      packets counted) but neither decoded nor recorded.
    --red off offers no redundant audio (RED, RFC 2198) when publishing or subscribing: the tone goes
      out, and audio comes in, as plain Opus (default on: docs/network.md, "RED").
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "no-subscribe", "echo-data", "verbose"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["url", "token", "channel", "uid", "app-id", "app-key", "video", "audio", "desc", "size", "fps",
                                      "tone-hz", "record", "layer", "no-subscribe", "echo-data", "duration", "stats-interval", "nickname", "verbose",
                                      "pattern-start", "ice-transport-policy", "video-codec", "ca-file", "e2ee-key", "red",
                                      "video-scalability"])
        let url = o["url"] ?? environment["SRTC_URL"] ?? "http://127.0.0.1:7880"
        let token = try await obtainToken(o, url: url, environment: environment)
        let settings = try JoinSettings(o)
        guard let policy = ICETransportPolicy(rawValue: o["ice-transport-policy"] ?? "all") else {
            throw .usage("--ice-transport-policy is all or relay")
        }
        guard let videoCodec = VideoCodec(encodingName: o["video-codec"] ?? "vp8") else {
            throw .usage("--video-codec is vp8, vp9, h264 or av1")
        }
        guard let scalability = VideoScalability(rawValue: o["video-scalability"] ?? "svc") else {
            throw .usage("--video-scalability is svc or simulcast")
        }
        guard let red = ["on": true, "off": false][o["red"] ?? "on"] else { throw .usage("--red is on or off") }

        var configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "srtc.join.events"),
                                                     logLevel: o.flags.contains("verbose") ? .debug : .warning,
                                                     iceTransportPolicy: policy, preferredVideoCodec: videoCodec, trustedCAFile: o["ca-file"])
        configuration.redundantAudio = red
        configuration.videoScalability = scalability
        configuration.e2ee = o["e2ee-key"].map { E2EEConfiguration(keyProvider: .sharedKey(passphrase: $0)) }
        let engine = try CLIError.sdk { () throws(SRTCError) in try SRTCEngine(configuration: configuration) }
        let channel = try CLIError.sdk { () throws(SRTCError) in try engine.createChannel() }
        let recorder = JoinRecorder(channel: channel, recordDirectory: settings.recordDirectory,
                                    subscribe: !o.flags.contains("no-subscribe"), layer: settings.layer,
                                    echoData: o.flags.contains("echo-data"), decrypts: configuration.e2ee != nil)
        channel.delegates.add(delegate: recorder)
        do {
            let info = try await channel.join(url: url, token: token, nickname: o["nickname"])
            JoinOutput.line("joined channel \(info.channel) as \(channel.uid ?? "?") (\(info.userCount) user(s))")
        } catch {
            throw .failed("join failed: \(error)")
        }
        let publisher = JoinPublisher(engine: engine, settings: settings)
        do {
            try await publisher.publish { try await channel.publishLocalTrack($0) }
        } catch {
            FileHandle.standardError.write(Data("srtc: publishing failed: \(error)\n".utf8))
        }
        await runUntilDone(duration: settings.duration, statsInterval: settings.statsInterval) {
            recorder.printStatistics(published: publisher.summary)
        }
        publisher.stop()
        await channel.leave()
        recorder.close()
        await engine.destroy()
        JoinOutput.line("left")
    }

    /// Uses --token, or grants one with the app's credentials.
    static func obtainToken(_ o: Options, url: String, environment: [String: String]) async throws(CLIError) -> String {
        if let token = o["token"] { return token }
        let appId = try o.require("app-id", env: "SRTC_APP_ID", environment: environment)
        let appKey = try o.require("app-key", env: "SRTC_APP_KEY", environment: environment)
        let body: [String: Any] = ["channel": try o.require("channel", environment: environment),
                                   "uid": try o.require("uid", environment: environment)]
        let tls = o["ca-file"].map(TLSConfiguration.trusting(caFile:)) ?? .clientDefault
        return try await SignedClient(baseURL: url, appId: appId, appKey: appKey, tls: tls).grantToken(path: "/server/v1/channel/grant", body: body)
    }

    /// Sleeps until `duration` passes or SIGINT/SIGTERM arrives, calling `tick` every `statsInterval`.
    static func runUntilDone(duration: Double?, statsInterval: Double, tick: @escaping @Sendable () -> Void,
                             until finished: @Sendable () -> Bool = { false }) async {
        let stop = StopSignal()
        let start = Date()
        while !stop.requested && !finished() {
            try? await Task.sleep(for: .milliseconds(Int(statsInterval * 1_000)))
            tick()
            if let duration, Date().timeIntervalSince(start) >= duration { break }
        }
    }
}

/// Parsed `srtc join` options.
struct JoinSettings: Sendable {
    enum VideoSource: Sendable { case none, pattern, file(String) }
    enum AudioSource: Sendable { case none, tone, file(String) }

    var video: VideoSource
    var audio: AudioSource
    var desc: String
    var width: Int
    var height: Int
    var fps: Int
    /// The number of the first test-pattern frame (bots told apart by their numbers).
    var patternStart: Int
    var toneHz: Double
    var recordDirectory: String?
    var layer: VideoLayer?
    var duration: Double?
    var statsInterval: Double

    init(_ o: Options) throws(CLIError) {
        switch o["video"] ?? "pattern" {
        case "none": video = .none
        case "pattern": video = .pattern
        case let path: video = .file(path)
        }
        switch o["audio"] ?? "tone" {
        case "none": audio = .none
        case "tone": audio = .tone
        case let path: audio = .file(path)
        }
        desc = o["desc"] ?? "camera_big"
        let size = (o["size"] ?? "640x360").split(separator: "x").compactMap { Int($0) }
        guard size.count == 2, size.allSatisfy({ $0 >= 16 && $0 <= 4096 && $0 % 2 == 0 }) else { throw .usage("--size must be WIDTHxHEIGHT, even, 16...4096") }
        (width, height) = (size[0], size[1])
        guard let fps = Int(o["fps"] ?? "30"), (1...60).contains(fps) else { throw .usage("--fps must be 1...60") }
        self.fps = fps
        guard let start = Int(o["pattern-start"] ?? "0"), (0...16_000_000).contains(start) else { throw .usage("--pattern-start must be 0...16000000") }
        patternStart = start
        guard let hz = Double(o["tone-hz"] ?? "440"), hz > 0, hz < 20_000 else { throw .usage("--tone-hz must be in (0, 20000)") }
        toneHz = hz
        recordDirectory = o["record"]
        if let layer = o["layer"] {
            guard let parsed = VideoLayer(rawValue: layer) else { throw .usage("--layer must be camera_big or camera_small") }
            self.layer = parsed
        }
        if let d = o["duration"] {
            guard let value = Double(d), value > 0 else { throw .usage("--duration must be a positive number of seconds") }
            duration = value
        }
        guard let interval = Double(o["stats-interval"] ?? "2"), interval >= 0.1 else { throw .usage("--stats-interval must be ≥ 0.1") }
        statsInterval = interval
    }
}

/// Set once SIGINT or SIGTERM arrives (the signals are caught, so the bot can leave cleanly).
// @unchecked Sendable: `flag` is guarded by `lock`; `sources` is filled in init and only kept alive after.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    private var sources: [DispatchSourceSignal] = []

    init() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.set() }
            source.resume()
            sources.append(source)
        }
    }

    private func set() {
        lock.lock()
        flag = true
        lock.unlock()
    }

    var requested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return flag
    }
}

/// Standard output written line by line, unbuffered: `srtc join` is a live log, also when piped.
enum JoinOutput {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
