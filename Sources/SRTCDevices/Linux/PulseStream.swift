#if os(Linux)
import SRTCCore
import CPulse

/// One PulseAudio stream through the simple (blocking) API: capture from a source or playback
/// to a sink, as 32-bit float mono at 48 kHz (the server converts to and from the device's
/// format). PipeWire's PulseAudio server speaks the same protocol. Used from one thread.
final class PulseStream {
    enum Direction {
        case record
        case playback
    }

    static let sampleRate = 48_000
    private let stream: OpaquePointer

    /// Opens a stream.
    /// - Parameters:
    ///   - server: the server address (`unix:/run/user/1000/pulse/native`, `tcp:host`); nil uses
    ///     libpulse's default ($PULSE_SERVER, then the session's server).
    ///   - device: the source or sink name; nil uses the server's default.
    ///   - latencyMs: the buffering asked of the server (fragment for capture, target for playback).
    /// - Throws: `.notFound` for an unknown device, `.systemError` when the server cannot be used.
    init(server: String?, direction: Direction, device: String?, name: String, latencyMs: Int) throws(SRTCError) {
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(Self.sampleRate), channels: 1)
        let bytes = UInt32(Self.sampleRate * latencyMs / 1_000 * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: direction == .playback ? bytes : UInt32.max,
                                        prebuf: direction == .playback ? bytes / 2 : UInt32.max,
                                        minreq: UInt32.max, fragsize: direction == .record ? bytes : UInt32.max)
        var error: Int32 = 0
        let opened = pa_simple_new(server, "SRTC", direction == .record ? PA_STREAM_RECORD : PA_STREAM_PLAYBACK, device, name,
                                   &spec, nil, &attributes, &error)
        guard let opened else { throw Self.error(error, device: device) }
        stream = opened
    }

    deinit {
        pa_simple_free(stream)
    }

    /// Blocks until `samples` is full of captured audio.
    func read(into samples: UnsafeMutableBufferPointer<Float>) throws(SRTCError) {
        var error: Int32 = 0
        guard pa_simple_read(stream, samples.baseAddress, samples.count * MemoryLayout<Float>.size, &error) >= 0 else {
            throw Self.error(error, device: nil)
        }
    }

    /// Queues `samples` for playback; blocks while the server's buffer is full (which paces the caller).
    func write(_ samples: UnsafeBufferPointer<Float>) throws(SRTCError) {
        var error: Int32 = 0
        guard pa_simple_write(stream, samples.baseAddress, samples.count * MemoryLayout<Float>.size, &error) >= 0 else {
            throw Self.error(error, device: nil)
        }
    }

    /// The SDK error for a libpulse error code.
    static func error(_ code: Int32, device: String?) -> SRTCError {
        let text = pa_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        if code == Int32(PA_ERR_NOENTITY.rawValue), let device { return .notFound("PulseAudio device \(device)") }
        return .systemError("PulseAudio: \(text)")
    }
}
#endif
