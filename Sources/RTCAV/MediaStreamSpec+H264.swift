// An H.264 stream written as received (no transcoding): its parameters come from the publisher's
// key access unit. The picture size is read from the SPS by libavcodec's H.264 parser; the SPS and
// PPS become the extradata, in Annex B form (libavformat's MP4 muxer writes the avcC from them and
// turns each Annex B access unit into length-prefixed NAL units, ISO/IEC 14496-15 §5.3).
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale
import RTCMedia

extension MediaStreamSpec {
    /// The H.264 stream an Annex B key access unit (SPS, PPS and an IDR slice) starts; nil when it
    /// lacks its SPS or PPS or the parser finds no picture size in it.
    public static func h264(keyAccessUnit unit: [UInt8]) -> MediaStreamSpec? {
        var extradata: [UInt8] = []
        var found: Set<UInt8> = []
        for range in H264.nalUnits(annexB: unit) {
            let type = unit[range.lowerBound] & 0x1F
            guard type == H264.NALType.sps || type == H264.NALType.pps else { continue }
            found.insert(type)
            extradata += H264.startCode + unit[range]
        }
        guard found.count == 2, let (width, height) = pictureSize(unit), width > 0, height > 0 else { return nil }
        return .video(.h264, width: width, height: height, extradata: extradata)
    }

    /// The size libavcodec's H.264 parser reads from a complete access unit (its SPS, cropping applied).
    private static func pictureSize(_ unit: [UInt8]) -> (Int, Int)? {
        AVLibrary.initialize()
        guard let parser = av_parser_init(Int32(AV_CODEC_ID_H264.rawValue)) else { return nil }
        defer { av_parser_close(parser) }
        var context = avcodec_alloc_context3(nil)
        defer { avcodec_free_context(&context) }
        guard let context else { return nil }
        // The input is one whole access unit: no need to look for the next one's start.
        parser.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: Int32 = 0
        unit.withUnsafeBufferPointer { input in
            _ = av_parser_parse2(parser, context, &output, &outputSize, input.baseAddress, Int32(input.count),
                                 srtc_av_nopts_value, srtc_av_nopts_value, 0)
        }
        return (Int(parser.pointee.width), Int(parser.pointee.height))
    }
}
