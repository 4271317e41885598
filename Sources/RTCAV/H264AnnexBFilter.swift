// Turns a demuxed H.264 stream into Annex B access units for RTP (RFC 6184 packetizes NAL units
// found after start codes): FLV and MP4 carry AVCC (each NAL unit after its length, SPS and PPS
// once in the `avcC` extradata), which FFmpeg's `h264_mp4toannexb` bitstream filter rewrites with
// start codes and with the SPS and PPS put before every IDR, so a receiver that starts at any key
// frame can decode. An input that is Annex B already (MPEG-TS) passes through it unchanged.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// FFmpeg's `h264_mp4toannexb` on one H.264 stream of a `MediaDemuxer`.
public final class H264AnnexBFilter {
    /// One picture's NAL units in Annex B form.
    public struct AccessUnit: Sendable, Equatable {
        public var bytes: [UInt8]
        /// An IDR picture (the demuxer's key flag), with the SPS and PPS before it.
        public var isKeyFrame: Bool
        /// Presentation time in microseconds, when the container gives one.
        public var ptsUs: Int64?
    }

    private var context: UnsafeMutablePointer<AVBSFContext>?
    private let output: UnsafeMutablePointer<AVPacket>

    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws(AVMediaError) {
        AVLibrary.initialize()
        guard parameters.pointee.codec_id == AV_CODEC_ID_H264 else {
            throw .invalidParameter("h264_mp4toannexb takes H.264, not \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))")
        }
        guard let filter = av_bsf_get_by_name("h264_mp4toannexb") else { throw .codecNotFound("h264_mp4toannexb") }
        var context: UnsafeMutablePointer<AVBSFContext>?
        try AVMediaError.check(av_bsf_alloc(filter, &context), "av_bsf_alloc")
        do throws(AVMediaError) {
            guard let context else { throw AVMediaError.failed(call: "av_bsf_alloc", code: -1, message: "out of memory") }
            try AVMediaError.check(avcodec_parameters_copy(context.pointee.par_in, parameters), "avcodec_parameters_copy")
            context.pointee.time_base_in = timeBase
            // Bad extradata (an avcC that does not parse) fails here: the stream is then transcoded.
            try AVMediaError.check(av_bsf_init(context), "av_bsf_init(h264_mp4toannexb)")
        } catch {
            av_bsf_free(&context)
            throw error
        }
        self.context = context
        output = av_packet_alloc()
    }

    deinit {
        av_bsf_free(&context)
        var p: UnsafeMutablePointer<AVPacket>? = output
        av_packet_free(&p)
    }

    /// Filters one packet of the stream; returns the access units it completed (one as a rule,
    /// none for a packet the filter drops). `packet`'s contents are handed to the filter: it is
    /// empty afterwards, until the next `MediaDemuxer.read(into:)`.
    /// - Throws: `.failed` for a packet the filter refuses (a NAL length past the packet's end);
    ///   the next packets are filtered as usual.
    public func filter(_ packet: MediaPacket) throws(AVMediaError) -> [AccessUnit] {
        guard let context else { throw .wrongState("closed") }
        let timeBase = packet.timeBase
        try AVMediaError.check(av_bsf_send_packet(context, packet.pointer), "av_bsf_send_packet")
        var units: [AccessUnit] = []
        while true {
            let rc = av_bsf_receive_packet(context, output)
            if rc == srtc_averror_eagain || rc == srtc_averror_eof { break }
            try AVMediaError.check(rc, "av_bsf_receive_packet")
            defer { av_packet_unref(output) }
            let pts = output.pointee.pts
            units.append(AccessUnit(bytes: Array(UnsafeBufferPointer(start: output.pointee.data, count: Int(output.pointee.size))),
                                    isKeyFrame: output.pointee.flags & AV_PKT_FLAG_KEY != 0,
                                    ptsUs: pts == srtc_av_nopts_value ? nil : av_rescale_q(pts, timeBase, AVRational(num: 1, den: 1_000_000))))
        }
        return units
    }
}
