import CAVUtil
import CSWResample
import RTCMedia

/// Converts PCM of any rate and channel count to mono signed 16-bit at `outputRate` with
/// libswresample (low-pass filtered: the SDK's `AudioResampler` interpolates linearly, which is
/// fine going up to 48 kHz but aliases going down to a recognizer's 16 kHz).
///
/// Engines that want 16 kHz (PocketSphinx, Whisper) or 48 kHz (the SDK) use it too.
/// One instance per stream (it keeps the filter's history between calls). `convert` writes into
/// a buffer made once, so a steady stream of same-sized buffers allocates nothing.
public final class PCMConverter {
    public let outputRate: Int
    private var context: OpaquePointer?
    private var input: (rate: Int, channels: Int, float: Bool)?
    private var output: UnsafeMutablePointer<Int16>
    private var capacity: Int

    public init(outputRate: Int) {
        self.outputRate = outputRate
        capacity = outputRate / 10  // 100 ms; grows if a caller pushes more at once
        output = .allocate(capacity: capacity)
    }

    deinit {
        swr_free(&context)
        output.deallocate()
    }

    /// Converts `buffer`; `body` sees the converted samples (valid only during the call).
    /// - Throws: `AgentError.badAudio` when libswresample refuses the format.
    public func convert<R>(_ buffer: AudioPCMBuffer, _ body: (UnsafeBufferPointer<Int16>) throws -> R) throws -> R {
        guard buffer.frameCount > 0 else { return try body(UnsafeBufferPointer(start: output, count: 0)) }
        switch buffer.samples {
        case .float32(let values):
            return try values.withUnsafeBufferPointer { source in
                try convert(UnsafeRawPointer(source.baseAddress!), frames: buffer.frameCount, rate: buffer.sampleRate,
                            channels: buffer.channels, float: true, body)
            }
        case .int16(let values):
            return try values.withUnsafeBufferPointer { source in
                try convert(UnsafeRawPointer(source.baseAddress!), frames: buffer.frameCount, rate: buffer.sampleRate,
                            channels: buffer.channels, float: false, body)
            }
        }
    }

    /// Converts mono 16-bit samples at `rate`.
    public func convert<R>(int16 samples: UnsafeBufferPointer<Int16>, rate: Int, _ body: (UnsafeBufferPointer<Int16>) throws -> R) throws -> R {
        guard let base = samples.baseAddress else { return try body(UnsafeBufferPointer(start: output, count: 0)) }
        return try convert(UnsafeRawPointer(base), frames: samples.count, rate: rate, channels: 1, float: false, body)
    }

    private func convert<R>(_ source: UnsafeRawPointer, frames: Int, rate: Int, channels: Int, float: Bool,
                            _ body: (UnsafeBufferPointer<Int16>) throws -> R) throws -> R {
        try configure(rate: rate, channels: channels, float: float)
        let needed = Int(swr_get_out_samples(context, Int32(frames)))
        if needed > capacity {
            output.deallocate()
            capacity = needed
            output = .allocate(capacity: capacity)
        }
        var inPlane: UnsafePointer<UInt8>? = source.assumingMemoryBound(to: UInt8.self)
        var outPlane: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self)
        let produced = swr_convert(context, &outPlane, Int32(capacity), &inPlane, Int32(frames))
        guard produced >= 0 else { throw AgentError.badAudio("libswresample: swr_convert returned \(produced)") }
        return try body(UnsafeBufferPointer(start: output, count: Int(produced)))
    }

    private func configure(rate: Int, channels: Int, float: Bool) throws {
        if let input, input == (rate, channels, float), context != nil { return }
        guard (1...384_000).contains(rate), (1...8).contains(channels) else {
            throw AgentError.badAudio("\(rate) Hz, \(channels) channel(s)")
        }
        swr_free(&context)
        var inLayout = AVChannelLayout(), outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(channels))
        av_channel_layout_default(&outLayout, 1)
        defer { av_channel_layout_uninit(&inLayout); av_channel_layout_uninit(&outLayout) }
        let status = swr_alloc_set_opts2(&context, &outLayout, AV_SAMPLE_FMT_S16, Int32(outputRate),
                                         &inLayout, float ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_S16, Int32(rate), 0, nil)
        guard status >= 0, context != nil, swr_init(context) >= 0 else {
            swr_free(&context)
            throw AgentError.badAudio("libswresample refused \(rate) Hz, \(channels) channel(s)")
        }
        input = (rate, channels, float)
    }
}
