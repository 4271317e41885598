// Decodes one demuxed stream with libavcodec into the SDK's frame types: pictures as I420
// `VideoFrame`s, sound as interleaved float `AudioPCMBuffer`s, times in microseconds.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale
import RTCMedia

/// What a decoder produced.
public enum DecodedMedia: Sendable {
    case video(VideoFrame)
    case audio(AudioPCMBuffer)
}

/// A libavcodec decoder for one stream of a `MediaDemuxer`.
public final class MediaDecoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let converter = PictureScaler()
    private let timeBase: AVRational
    /// The codec's name (`h264`, `aac`, …).
    public let codecName: String

    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws(AVMediaError) {
        AVLibrary.initialize()
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw .codecNotFound(String(cString: avcodec_get_name(parameters.pointee.codec_id)))
        }
        guard let context = avcodec_alloc_context3(codec) else { throw .failed(call: "avcodec_alloc_context3", code: -1, message: "out of memory") }
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        do {
            try AVMediaError.check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context")
            context.pointee.pkt_timebase = timeBase
            context.pointee.thread_count = 1
            try AVMediaError.check(avcodec_open2(context, codec, nil), "avcodec_open2")
        } catch {
            avcodec_free_context(&ctx)
            throw error
        }
        self.context = context
        self.timeBase = timeBase
        codecName = String(cString: codec.pointee.name)
        frame = av_frame_alloc()
    }

    deinit {
        av_frame_free(&frame)
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    /// Decodes one packet; returns the frames it completed (zero or more).
    public func decode(_ packet: MediaPacket) throws(AVMediaError) -> [DecodedMedia] {
        let rc = avcodec_send_packet(context, packet.pointer)
        // A corrupt packet is skipped; the decoder resynchronizes on the next key frame.
        if rc < 0 && rc != srtc_averror_eagain && rc != srtc_averror_eof { return [] }
        return try receive()
    }

    /// Drains the frames the decoder still holds (end of input).
    public func flush() throws(AVMediaError) -> [DecodedMedia] {
        _ = avcodec_send_packet(context, nil)
        return try receive()
    }

    private func receive() throws(AVMediaError) -> [DecodedMedia] {
        guard let frame else { return [] }
        var out: [DecodedMedia] = []
        while true {
            let rc = avcodec_receive_frame(context, frame)
            if rc == srtc_averror_eagain || rc == srtc_averror_eof { break }
            try AVMediaError.check(rc, "avcodec_receive_frame")
            defer { av_frame_unref(frame) }
            let ts = frame.pointee.best_effort_timestamp
            let us = ts == srtc_av_nopts_value ? 0 : av_rescale_q(ts, timeBase, AVRational(num: 1, den: 1_000_000))
            if context.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
                if let picture = try converter.i420(from: frame) { out.append(.video(VideoFrame(buffer: picture, timestampUs: us))) }
            } else if let pcm = Self.interleaved(frame, timestampUs: us) {
                out.append(.audio(pcm))
            }
        }
        return out
    }

    /// Interleaves a decoded audio frame into float PCM (planar and packed float, 16- and 32-bit integer formats).
    static func interleaved(_ frame: UnsafeMutablePointer<AVFrame>, timestampUs: Int64) -> AudioPCMBuffer? {
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        let count = Int(frame.pointee.nb_samples)
        let rate = Int(frame.pointee.sample_rate)
        guard channels > 0, count > 0, rate > 0 else { return nil }
        let format = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        var samples = [Float](repeating: 0, count: channels * count)
        let ok = withUnsafePointer(to: &frame.pointee.data) { planes in
            planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes -> Bool in
                func sample(_ c: Int, _ i: Int) -> Float? {
                    guard let base = planar ? planes[c] : planes[0] else { return nil }
                    let index = planar ? i : i * channels + c
                    switch format {
                    case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
                        return UnsafeRawPointer(base).assumingMemoryBound(to: Float.self)[index]
                    case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
                        return Float(UnsafeRawPointer(base).assumingMemoryBound(to: Int16.self)[index]) / 32_768
                    case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                        return Float(UnsafeRawPointer(base).assumingMemoryBound(to: Int32.self)[index]) / 2_147_483_648
                    default:
                        return nil
                    }
                }
                if planar && channels > 8 { return false }
                for i in 0..<count {
                    for c in 0..<channels {
                        guard let value = sample(c, i) else { return false }
                        samples[i * channels + c] = value
                    }
                }
                return true
            }
        }
        guard ok else { return nil }
        return AudioPCMBuffer(float32: samples, sampleRate: rate, channels: channels, timestampUs: timestampUs)
    }
}
