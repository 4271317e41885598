// AAC-LC for HLS, RTMP and MP4, encoded by libavcodec's native AAC encoder. It takes PCM in any
// chunk size (the composite mixes 20 ms at a time) and cuts the 1024-sample frames AAC needs.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// Encodes interleaved float PCM to AAC.
public final class AACEncoder {
    public let sampleRate: Int
    public let channels: Int
    public let bitrate: Int
    private let encoder: EncoderContext
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// Interleaved samples waiting for a full frame.
    private var pending: [Float] = []
    /// Samples handed to the encoder so far (the next frame's time).
    private var samplesSent: Int64 = 0
    private var startUs: Int64?

    /// Opens the encoder.
    /// - Parameters:
    ///   - sampleRate: 48 000 (the SDK's rate) by default.
    ///   - channels: 1 or 2.
    ///   - bitrate: bits per second.
    ///   - globalHeader: AudioSpecificConfig out of band (MP4, FLV, HLS muxers: `MediaMuxer.wantsGlobalHeader`).
    public init(sampleRate: Int = 48_000, channels: Int = 1, bitrate: Int = 96_000, globalHeader: Bool = false) throws(AVMediaError) {
        guard [1, 2].contains(channels), (8_000...96_000).contains(sampleRate), bitrate > 0 else {
            throw .invalidParameter("AAC \(sampleRate) Hz × \(channels)")
        }
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitrate = bitrate
        encoder = try EncoderContext(names: ["aac"], options: []) { ctx in
            ctx.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            ctx.pointee.sample_rate = Int32(sampleRate)
            av_channel_layout_default(&ctx.pointee.ch_layout, Int32(channels))
            ctx.pointee.bit_rate = Int64(bitrate)
            ctx.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
            if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }
        let frameSize = Int(encoder.context.pointee.frame_size)
        guard frameSize > 0, let frame = av_frame_alloc() else { throw .invalidParameter("AAC frame size") }
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&frame.pointee.ch_layout, Int32(channels))
        var allocated: UnsafeMutablePointer<AVFrame>? = frame
        if av_frame_get_buffer(frame, 0) < 0 {
            av_frame_free(&allocated)
            throw .failed(call: "av_frame_get_buffer", code: -1, message: "out of memory")
        }
        self.frame = frame
    }

    deinit { av_frame_free(&frame) }

    /// Samples per AAC frame (1024).
    public var frameSize: Int { Int(encoder.context.pointee.frame_size) }

    /// The stream to add to a muxer (with its AudioSpecificConfig when `globalHeader` is set).
    public var streamSpec: MediaStreamSpec {
        .audio(.aac, sampleRate: sampleRate, channels: channels, frameSize: frameSize,
               initialPadding: Int(encoder.context.pointee.initial_padding), extradata: encoder.extradata, bitrate: bitrate)
    }

    /// Adds interleaved samples (`channels` per frame); returns the AAC frames completed.
    /// - Parameters:
    ///   - samples: interleaved float PCM at `sampleRate`.
    ///   - ptsUs: the time of the first sample of the first call; later calls continue by sample count.
    public func encode(interleaved samples: [Float], ptsUs: Int64) throws(AVMediaError) -> [EncodedPacket] {
        if startUs == nil { startUs = ptsUs }
        pending += samples
        var out: [EncodedPacket] = []
        let perFrame = frameSize * channels
        var consumed = 0
        while pending.count - consumed >= perFrame {
            out += try encodeFrame(pending[consumed ..< consumed + perFrame])
            consumed += perFrame
        }
        pending.removeFirst(consumed)
        return out
    }

    /// Encodes what is left (padded with silence) and drains the encoder.
    public func flush() throws(AVMediaError) -> [EncodedPacket] {
        var out: [EncodedPacket] = []
        if !pending.isEmpty {
            let padded = pending + [Float](repeating: 0, count: frameSize * channels - pending.count)
            pending = []
            out += try encodeFrame(padded[...])
        }
        return out + (try encoder.send(nil))
    }

    private func encodeFrame(_ interleaved: ArraySlice<Float>) throws(AVMediaError) -> [EncodedPacket] {
        guard let frame else { throw .wrongState("no frame") }
        try AVMediaError.check(av_frame_make_writable(frame), "av_frame_make_writable")
        let n = frameSize
        withUnsafeMutablePointer(to: &frame.pointee.data) { planes in
            planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                for c in 0..<channels {
                    guard let plane = planes[c] else { continue }
                    let target = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
                    var index = interleaved.startIndex + c
                    for i in 0..<n {
                        target[i] = interleaved[index]
                        index += channels
                    }
                }
            }
        }
        frame.pointee.pts = samplesSent
        samplesSent += Int64(n)
        let packets = try encoder.send(frame)
        let offset = startUs ?? 0
        return packets.map { p in
            var shifted = p
            shifted.ptsUs += offset
            shifted.dtsUs += offset
            return shifted
        }
    }
}
