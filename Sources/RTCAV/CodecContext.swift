// The part every libavcodec encoder shares: the context, a reusable packet, and the
// send-frame / receive-packet loop of the codec API (avcodec_send_frame, avcodec_receive_packet).
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// An opened encoder context with its packet; owned by one encoder wrapper.
final class EncoderContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    let name: String
    private var packet: UnsafeMutablePointer<AVPacket>?
    private static let microseconds = AVRational(num: 1, den: 1_000_000)

    /// Allocates the first available encoder of `names`, lets `configure` set it up, opens it with `options`.
    init(names: [String], options: [(String, String)], configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws(AVMediaError) {
        AVLibrary.initialize()
        guard let (codec, name) = names.lazy.compactMap({ n in avcodec_find_encoder_by_name(n).map { ($0, n) } }).first else {
            throw .codecNotFound(names.joined(separator: " or "))
        }
        guard let context = avcodec_alloc_context3(codec) else { throw .failed(call: "avcodec_alloc_context3", code: -1, message: "out of memory") }
        configure(context)
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let rc = avcodec_open2(context, codec, &dictionary)
        av_dict_free(&dictionary)
        if rc < 0 {
            var ctx: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&ctx)
            try AVMediaError.check(rc, "avcodec_open2(\(name))")
        }
        self.context = context
        self.name = name
        packet = av_packet_alloc()
    }

    deinit {
        av_packet_free(&packet)
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    /// The codec configuration record the encoder produced (with `AV_CODEC_FLAG_GLOBAL_HEADER`).
    var extradata: [UInt8] {
        guard let data = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }

    /// Sends `frame` (nil flushes) and returns every packet the encoder has ready.
    func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws(AVMediaError) -> [EncodedPacket] {
        let rc = avcodec_send_frame(context, frame)
        if rc != srtc_averror_eof { try AVMediaError.check(rc, "avcodec_send_frame(\(name))") }
        return try receive()
    }

    private func receive() throws(AVMediaError) -> [EncodedPacket] {
        guard let packet else { return [] }
        var out: [EncodedPacket] = []
        while true {
            let rc = avcodec_receive_packet(context, packet)
            if rc == srtc_averror_eagain || rc == srtc_averror_eof { break }
            try AVMediaError.check(rc, "avcodec_receive_packet(\(name))")
            let tb = context.pointee.time_base
            let bytes = Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
            let pts = packet.pointee.pts == srtc_av_nopts_value ? 0 : av_rescale_q(packet.pointee.pts, tb, Self.microseconds)
            let dts = packet.pointee.dts == srtc_av_nopts_value ? pts : av_rescale_q(packet.pointee.dts, tb, Self.microseconds)
            out.append(EncodedPacket(data: bytes, ptsUs: pts, dtsUs: dts, durationUs: av_rescale_q(packet.pointee.duration, tb, Self.microseconds),
                                     isKeyFrame: packet.pointee.flags & AV_PKT_FLAG_KEY != 0))
            av_packet_unref(packet)
        }
        return out
    }
}
