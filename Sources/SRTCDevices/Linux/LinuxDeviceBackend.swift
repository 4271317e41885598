#if os(Linux)
import SRTCCore
import Foundation

/// Devices on Linux: cameras are the V4L2 nodes under `/dev`, microphones and speakers the
/// PulseAudio server's sources and sinks (PipeWire serves the same protocol). Changes come from
/// inotify on the device directory and from a PulseAudio subscription, each on its own thread.
struct LinuxDeviceBackend: DeviceBackend {
    /// The PulseAudio server (nil: libpulse's default).
    let audioServer: String?
    /// Where the V4L2 nodes are (`/dev`; tests point it elsewhere).
    let videoDirectory: String
    let logger: Logger

    init(audioServer: String?, videoDirectory: String = "/dev", logger: Logger) {
        self.audioServer = audioServer
        self.videoDirectory = videoDirectory
        self.logger = logger
    }

    func devices(_ kind: MediaDeviceKind) -> [MediaDevice] {
        switch kind {
        case .videoInput:
            return V4L2DeviceList.cameras(in: videoDirectory)
        case .audioInput, .audioOutput:
            guard let connection = try? PulseConnection(server: audioServer) else { return [] }
            return connection.devices().filter { $0.kind == kind }
        }
    }

    func watch(_ changed: @escaping @Sendable () -> Void) -> DeviceWatch {
        LinuxDeviceWatch(threads: [V4L2DeviceList.watch(videoDirectory, changed), Self.watchPulse(server: audioServer, changed)])
    }

    func openAudioOutput(deviceId: String?, mixer: RemoteAudioMixer) throws(SRTCError) -> DeviceWatch {
        try PulseAudioPlayback.start(server: audioServer, sink: deviceId, mixer: mixer, logger: logger)
    }

    /// Subscribes to the server's sink and source changes; reconnects every second while the
    /// server is away (its coming and going changes the lists too).
    private static func watchPulse(server: String?, _ changed: @escaping @Sendable () -> Void) -> DeviceThread {
        DeviceThread(name: "srtc.pulse.watch") { thread in
            var wasConnected = false
            while thread.isRunning {
                guard let connection = try? PulseConnection(server: server, timeout: 1) else {
                    if wasConnected { changed() }
                    wasConnected = false
                    for _ in 0..<10 where thread.isRunning { usleep(100_000) }
                    continue
                }
                connection.subscribe()
                if !wasConnected { changed() }
                wasConnected = true
                while thread.isRunning && connection.isReady {
                    connection.iterate(timeoutMs: 100)
                    if connection.takeChanges() { changed() }
                }
            }
        }
    }
}

/// The two watcher threads, stopped together.
private struct LinuxDeviceWatch: DeviceWatch {
    let threads: [DeviceThread]

    func stop() {
        for thread in threads { thread.stop() }
    }
}
#endif
