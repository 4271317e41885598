import Foundation
import SRTC

/// `srtc whip`: publishes the test pattern and a tone (or files) to any WHIP endpoint (RFC 9725)
/// with the Swift SDK's publish path (`WHIPPublisher`), the media `srtc join` sends.
enum WHIPCommand {
    static let help = """
    usage: srtc whip URL [--token TOKEN] [--video pattern|none|FILE.y4m] [--audio tone|none|FILE.wav]
                     [--size 640x360] [--fps 30] [--pattern-start 0] [--tone-hz 440] [--video-codec vp8|h264]
                     [--duration SECONDS] [--ca-file CA.pem] [--verbose]

    Publishes to the WHIP endpoint URL (ours: http(s)://host:7880/whip/v1/<channel>, docs/ingress.md)
    with TOKEN as its bearer token (ours: a channel token with publish rights, `srtc grant`; also
    $SRTC_TOKEN). The media is that of `srtc join`: frames whose pixels carry their frame number
    and a sine tone by default. Runs for --duration seconds or until interrupted (Ctrl-C), then
    ends the session (DELETE). Prints the session's resource URL once the endpoint answered 201.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "verbose"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["token", "video", "audio", "size", "fps", "pattern-start", "tone-hz", "video-codec", "duration",
                                      "ca-file", "verbose"])
        guard o.positional.count == 1, let url = o.positional.first else { throw .usage("srtc whip takes one URL\n\n\(help)") }
        let settings = try JoinSettings(o)
        guard let videoCodec = VideoCodec(encodingName: o["video-codec"] ?? "vp8") else { throw .usage("--video-codec is vp8 or h264") }
        let configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "srtc.whip.events"),
                                                     logLevel: o.flags.contains("verbose") ? .debug : .warning,
                                                     preferredVideoCodec: videoCodec, trustedCAFile: o["ca-file"])
        let engine = try CLIError.sdk { () throws(SRTCError) in try SRTCEngine(configuration: configuration) }
        let whip = try CLIError.sdk { () throws(SRTCError) in try WHIPPublisher(engine: engine) }
        let publisher = JoinPublisher(engine: engine, settings: settings)
        var tracks: [LocalTrack] = []
        do {
            try await publisher.publish { tracks.append($0) }
        } catch {
            throw .failed("cannot make the tracks: \(error)")
        }
        do {
            try await whip.publish(tracks, endpoint: url, token: o["token"] ?? environment["SRTC_TOKEN"])
        } catch {
            publisher.stop()
            await engine.destroy()
            throw .failed("WHIP publish failed: \(error)")
        }
        JoinOutput.line("publishing at \(whip.resourceURL ?? url)")
        await JoinCommand.runUntilDone(duration: settings.duration, statsInterval: 2) {
            JoinOutput.line(publisher.summary)
        }
        publisher.stop()
        await whip.stop()
        await engine.destroy()
        JoinOutput.line("stopped")
    }
}
