import Foundation
import RTCMedia
import SRTC
import Synchronization

/// `srtc broadcast`: the sending side of a screen broadcast, what an iOS broadcast extension does,
/// in its own process on any platform: hands a numbered test pattern and a tone to a host app
/// that called `startScreenRecordListening(socketPath:)`, so a host can be tried (and tested)
/// without ReplayKit.
enum BroadcastCommand {
    static let help = """
    usage: srtc broadcast (--socket PATH | --app-group GROUP) [--size 640x360] [--fps 30] [--pattern-start 0] [--tone-hz 440]
                          [--audio tone|none] [--frames N]

    Connects to the screen-broadcast host listening on the Unix socket PATH (an app that called
    startScreenRecordListening(socketPath:)), or on the socket of GROUP (where SMeeting's
    prepareBroadcastShare(appGroup:) listens: SRTCEngine.broadcastSocketPath(appGroup:)), as an
    iOS broadcast extension does, and sends frames whose pixels carry their frame number (from
    --pattern-start) at --size and --fps, with a sine tone of --tone-hz as the apps' audio in
    20 ms buffers (--audio none: no audio). Stops after
    --frames frames (telling the host the broadcast finished), when the host ends it
    (stopScreenRecord()), or on Ctrl-C. Prints `connected to PATH`, then `stopped by the host
    after N frames` or `finished after N frames`. Exit status 1 when no host listens at PATH or
    the host goes away.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) throws(CLIError) {
        let o = try Options(args)
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["socket", "app-group", "size", "fps", "pattern-start", "tone-hz", "audio", "frames"])
        let path: String
        switch (o["socket"], o["app-group"]) {
        case (let socket?, nil): path = socket
        case (nil, let group?):
            guard let groupPath = SRTCEngine.broadcastSocketPath(appGroup: group) else { throw .usage("--app-group: no socket for '\(group)'") }
            path = groupPath
        default: throw .usage("srtc broadcast needs one of --socket and --app-group\n\n\(help)")
        }
        let settings = try JoinSettings(o)   // the same media options as `srtc join`
        if case .file = settings.audio { throw .usage("--audio must be tone or none") }
        var limit = Int.max
        if let f = o["frames"] {
            guard let value = Int(f), value > 0 else { throw .usage("--frames must be a positive number") }
            limit = value
        }
        let generator: TestPatternGenerator
        do {
            generator = try TestPatternGenerator(width: settings.width, height: settings.height, frameRate: settings.fps)
        } catch {
            throw .failed("no test pattern at \(settings.width)x\(settings.height): \(error)")
        }
        var tone: SineToneGenerator? = {
            if case .none = settings.audio { return nil }
            return SineToneGenerator(frequency: settings.toneHz, amplitude: 0.3)
        }()

        let stoppedByHost = Atomic<Bool>(false)
        let sender: BroadcastSender
        do {
            sender = try BroadcastSender(path: path) { stoppedByHost.store(true, ordering: .releasing) }
        } catch {
            throw .failed("\(error)")
        }
        JoinOutput.line("connected to \(path)")
        let stop = StopSignal()

        // One schedule for both: a frame every 1/fps, audio every 20 ms, on absolute times (a late
        // wake-up catches up instead of drifting).
        let start = DispatchTime.now().uptimeNanoseconds
        let frameNs = 1_000_000_000 / UInt64(settings.fps), audioNs: UInt64 = 20_000_000
        var frames = 0, audioBuffers = 0
        while frames < limit && !stop.requested && !stoppedByHost.load(ordering: .acquiring) {
            let now = DispatchTime.now().uptimeNanoseconds - start
            var sent = true
            if UInt64(frames) * frameNs <= now {
                sent = sender.send(frame: generator.videoFrame(number: settings.patternStart + frames))
                frames += 1
            }
            if sent, tone != nil, UInt64(audioBuffers) * audioNs <= now {
                sent = sender.send(appAudio: tone!.next(frameCount: 960))
                audioBuffers += 1
            }
            // The host may have ended the broadcast between our check and the write.
            guard sent || stoppedByHost.load(ordering: .acquiring) else { throw .failed("the broadcast host went away after \(frames) frames") }
            let due = min(UInt64(frames) * frameNs, tone == nil ? .max : UInt64(audioBuffers) * audioNs)
            let later = DispatchTime.now().uptimeNanoseconds - start
            if due > later { usleep(UInt32(min(100_000, (due - later) / 1_000))) }
        }
        if stoppedByHost.load(ordering: .acquiring) {
            JoinOutput.line("stopped by the host after \(frames) frames")
        } else {
            sender.finish()
            JoinOutput.line("finished after \(frames) frames")
        }
    }
}
