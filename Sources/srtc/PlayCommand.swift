import Foundation
import SRTC

/// `srtc play`: plays a live stream with the SDK's receive-only CDN engine (the channel's
/// `play(url:)`), subscribes to its video and audio, and prints (and optionally records) what
/// arrives, like `srtc join` does for an SFU channel.
enum PlayCommand {
    static let help = """
    usage: srtc play URL [--record DIR] [--duration SECONDS] [--stats-interval SECONDS] [--verbose]

    Plays URL (an HLS playlist such as http://host:7880/live/<app_id>/<channel>/index.m3u8, an
    rtmp:// stream, or any input FFmpeg reads) on a CDN-engine channel: the stream appears as one
    user, `stream`, with a video track (camera_big) and an audio track (mic). With --record DIR,
    video goes to DIR/stream-camera_big-CDN_video.y4m and audio to DIR/stream-mic-CDN_audio.wav.
    Statistics print every --stats-interval seconds (2). Runs for --duration seconds, or until the
    stream ends or you interrupt it.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "verbose"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["record", "duration", "stats-interval", "verbose"])
        guard o.positional.count == 1, let url = o.positional.first else { throw .usage("srtc play needs one URL\n\n\(help)") }
        var duration: Double?
        if let d = o["duration"] {
            guard let value = Double(d), value > 0 else { throw .usage("--duration must be a positive number of seconds") }
            duration = value
        }
        guard let interval = Double(o["stats-interval"] ?? "2"), interval >= 0.1 else { throw .usage("--stats-interval must be ≥ 0.1") }

        let engine = try CLIError.sdk { () throws(SRTCError) in try SRTCEngine(configuration: .init(delegateQueue: DispatchQueue(label: "srtc.play.events"),
                                                     logLevel: o.flags.contains("verbose") ? .debug : .warning)) }
        let channel = try CLIError.sdk { () throws(SRTCError) in try engine.createChannel(engine: .cdn) }
        let recorder = JoinRecorder(channel: channel, recordDirectory: o["record"], subscribe: true, layer: nil)
        channel.delegates.add(delegate: recorder)
        do {
            let info = try await channel.play(url: url)
            JoinOutput.line("playing \(info.channel) from \(url)")
        } catch {
            throw .failed("play failed: \(error)")
        }
        await JoinCommand.runUntilDone(duration: duration, statsInterval: interval) {
            recorder.printStatistics(published: "receive-only")
        } until: {
            !channel.isJoined
        }
        await channel.leave()
        recorder.close()
        await engine.destroy()
        JoinOutput.line("stopped")
    }
}
