import Foundation
import Processes
import TestWait

/// A throwaway PulseAudio daemon for one test: its own directory, a UNIX socket, no autospawn,
/// no idle exit, and null sinks (virtual speakers whose `.monitor` sources record what is
/// played). Works as root (CI): PulseAudio only warns about it when not in system mode.
///
/// ```swift
/// let pulse = try await PulseAudioServer.start(sinks: ["speaker", "mic"])
/// let engine = SRTCEngine(configuration: .init(delegateQueue: q, audioServer: pulse.address))
/// ```
public final class PulseAudioServer: Sendable {
    /// The address clients pass (`unix:<dir>/native`).
    public let address: String
    public let directory: String
    private let daemon: ChildProcess

    private init(directory: String, daemon: ChildProcess) {
        self.directory = directory
        self.daemon = daemon
        address = "unix:\(directory)/native"
    }

    /// Starts a daemon with one 48 kHz mono null sink per name.
    /// - Throws: `TestDaemon.Failure` when the socket does not appear within 10 s.
    public static func start(sinks: [String]) async throws -> PulseAudioServer {
        let directory = try TestDaemon.makeDirectory("srtc-pulse")
        try FileManager.default.createDirectory(atPath: directory + "/runtime", withIntermediateDirectories: true)
        var script = "load-module module-native-protocol-unix auth-anonymous=1 socket=\(directory)/native\n"
        for sink in sinks {
            script += "load-module module-null-sink sink_name=\(sink) format=float32le rate=48000 channels=1\n"
        }
        try script.write(toFile: directory + "/default.pa", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory
        environment["XDG_RUNTIME_DIR"] = directory + "/runtime"
        environment["PULSE_RUNTIME_PATH"] = directory + "/runtime"
        let daemon = try ChildProcess("pulseaudio", ["-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
                                                     "--use-pid-file=no", "--disable-shm=yes", "--system=no",
                                                     "-F", directory + "/default.pa", "--log-target=stderr", "--log-level=error"],
                                      environment: environment, log: directory + "/pulseaudio.log")
        try TestDaemon.cleanUpAfterExit("kill \(daemon.pid) 2>/dev/null; rm -rf \(directory)")
        let server = PulseAudioServer(directory: directory, daemon: daemon)
        struct Exited: Error {}
        // The socket's file appears at bind(), before listen() and before the rest of the script
        // (the sinks) has loaded: a client connecting then is refused. Ready is when pactl is answered.
        do {
            try await eventually(timeout: 10, "pulseaudio to answer", poll: .milliseconds(20)) {
                guard daemon.isRunning else { throw Exited() }
                guard FileManager.default.fileExists(atPath: directory + "/native") else { return false }
                return (try? await server.pactl(["info"])) != nil
            }
        } catch {
            let log = (try? String(contentsOfFile: directory + "/pulseaudio.log", encoding: .utf8)) ?? ""
            await server.stop()
            throw TestDaemon.Failure(description: "pulseaudio \(error is Exited ? "exited" : "did not answer within 10 s"): \(log)")
        }
        return server
    }

    /// Runs `pactl` against this server; returns its output.
    @discardableResult
    public func pactl(_ arguments: [String]) async throws -> String {
        try await offPool { [address] in try TestDaemon.run("pactl", ["-s", address] + arguments) }
    }

    /// Records `source` (for example `speaker.monitor`) as 48 kHz mono float until stopped.
    public func record(_ source: String) throws -> PCMRecording {
        try PCMRecording(server: address, source: source)
    }

    /// Plays a sine tone into `sink` until stopped.
    public func playTone(into sink: String, frequency: Double, amplitude: Double = 0.5) throws -> TonePlayer {
        try TonePlayer(server: address, sink: sink, frequency: frequency, amplitude: amplitude)
    }

    /// Stops the daemon and removes its directory.
    public func stop() async {
        await daemon.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
