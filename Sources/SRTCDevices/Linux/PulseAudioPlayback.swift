#if os(Linux)
import SRTCCore
import Foundation

/// The speaker on Linux: a PulseAudio playback stream fed from the remote audio mixer, 10 ms at
/// a time, on a thread of its own. The server's buffer (40 ms) paces the loop: each write blocks
/// until there is room, so the mixer is pulled at exactly the sink's rate.
enum PulseAudioPlayback {
    static func start(server: String?, sink: String?, mixer: RemoteAudioMixer, logger: Logger) throws(SRTCError) -> DeviceThread {
        let stream = try PulseStream(server: server, direction: .playback, device: sink, name: "remote audio", latencyMs: 40)
        let box = UncheckedBox(stream)
        return DeviceThread(name: "srtc.pulse.playback") { thread in
            let stream = box.value
            var samples = [Float](repeating: 0, count: PulseStream.sampleRate / 100)
            while thread.isRunning {
                samples.withUnsafeMutableBufferPointer { mixer.pull(into: $0) }
                do {
                    try samples.withUnsafeBufferPointer { try stream.write($0) }
                } catch {
                    logger.warning("audio playback ended: \(error)")
                    return
                }
            }
        }
    }
}
#endif
