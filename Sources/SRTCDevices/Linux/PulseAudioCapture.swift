#if os(Linux)
import SRTCCore
import Foundation
import RTCMedia

/// Microphone capture from a PulseAudio source on a thread of its own: 20 ms of 48 kHz mono
/// float at a time, handed to `deliver`, until stopped.
enum PulseAudioCapture {
    /// Opens the source (on the calling thread, so errors are thrown here) and starts the loop.
    static func start(server: String?, source: String?, logger: Logger,
                      deliver: @escaping @Sendable (AudioPCMBuffer) -> Void) throws(SRTCError) -> DeviceThread {
        let stream = try PulseStream(server: server, direction: .record, device: source, name: "microphone", latencyMs: 10)
        let box = UncheckedBox(stream)
        return DeviceThread(name: "srtc.pulse.capture") { thread in
            let stream = box.value
            let frames = PulseStream.sampleRate / 50
            var samples = [Float](repeating: 0, count: frames)
            var captured: Int64 = 0
            while thread.isRunning {
                do {
                    try samples.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
                } catch {
                    logger.warning("microphone capture ended: \(error)")
                    return
                }
                // Presentation time from the samples counted, which is the capture clock.
                deliver(AudioPCMBuffer(float32: samples, sampleRate: PulseStream.sampleRate, channels: 1,
                                       timestampUs: captured * 1_000_000 / Int64(PulseStream.sampleRate)))
                captured += Int64(frames)
            }
        }
    }
}
#endif
