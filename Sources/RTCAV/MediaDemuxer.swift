// Reads any input libavformat opens (an HLS playlist over HTTP, an RTMP stream, a file) packet by
// packet: what the SDK's CDN engine and the tests' checks read recordings and live streams with.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// One compressed packet read from a `MediaDemuxer`; reused from read to read.
public final class MediaPacket {
    let pointer: UnsafeMutablePointer<AVPacket>
    var timeBase = AVRational(num: 1, den: 1_000_000)

    public init() {
        pointer = av_packet_alloc()
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    /// The stream it belongs to.
    public var streamIndex: Int { Int(pointer.pointee.stream_index) }
    /// Presentation time in microseconds, when the container gives one.
    public var ptsUs: Int64? {
        let pts = pointer.pointee.pts
        return pts == srtc_av_nopts_value ? nil : av_rescale_q(pts, timeBase, AVRational(num: 1, den: 1_000_000))
    }
    /// Decoding time in microseconds, when the container gives one (below `ptsUs` when pictures
    /// are reordered: B-frames).
    public var dtsUs: Int64? {
        let dts = pointer.pointee.dts
        return dts == srtc_av_nopts_value ? nil : av_rescale_q(dts, timeBase, AVRational(num: 1, den: 1_000_000))
    }
    /// Whether a decoder can start here.
    public var isKeyFrame: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// Another reference to the same packet (the bytes are reference-counted, not copied): kept
    /// while this one is read into again or handed to a filter, which empties it.
    public func copy() -> MediaPacket {
        let other = MediaPacket()
        if av_packet_ref(other.pointer, pointer) < 0 { av_packet_unref(other.pointer) }
        other.timeBase = timeBase
        return other
    }
    /// The compressed bytes.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size))) }
}

/// An opened input.
public final class MediaDemuxer {
    /// What the input holds in one stream.
    public struct StreamInfo: Sendable, Equatable {
        public var index: Int
        public var isVideo: Bool
        /// libavcodec's codec name (`h264`, `aac`, `vp8`, `opus`, …).
        public var codecName: String
        public var width: Int
        public var height: Int
        public var sampleRate: Int
        public var channels: Int
        /// libavcodec's profile of a video stream (H.264: `profile_idc`, with bit 9 set for
        /// Constrained Baseline and bit 11 for Intra profiles); -99 when unknown.
        public var profile: Int = -99
        /// Whether pictures are reordered (B-frames): decoding and display order differ. libavcodec's
        /// `has_b_frames` after the probe: the SPS's `max_num_reorder_frames` (H.264 §E.2.1) when
        /// its VUI says, else what the probed packets' timestamps showed.
        public var reordersFrames: Bool = false
        /// libavcodec's level of a video stream (H.264: `level_idc`); -99 when unknown.
        public var level: Int = -99

        /// H.264 Baseline or Constrained Baseline (`profile_idc` 66) without reordering: what every
        /// WebRTC receiver decodes (RFC 6184's `profile-level-id=42e01f` family).
        public var isH264Baseline: Bool { codecName == "h264" && profile >= 0 && profile & 0xFF == 66 && !reordersFrames }

        /// H.264 High (`profile_idc` 100; not High 10, 4:2:2 or 4:4:4): a browser's decoder may
        /// lack it (Debian's Chromium decodes Constrained Baseline and Main only).
        public var isH264High: Bool { codecName == "h264" && profile >= 0 && profile & 0xFF == 100 }

        /// H.264 that WebRTC can carry as it is: Baseline, Main or High (`profile_idc` 66, 77,
        /// 100) without reordering (RTP has no decoding order, so no B-frames).
        public var isH264WithoutReordering: Bool { h264ProfileLevelID != nil && !reordersFrames }

        /// The `profile-level-id` (RFC 6184 §8.1) of an H.264 Baseline, Main or High stream:
        /// Baseline as Constrained Baseline (`42e0…`: the passthrough sends no FMO/ASO, which
        /// x264 and hardware encoders never use), Main `4d00…`, High `6400…`, with the stream's
        /// level (3.1 when unknown); nil for another codec or profile.
        public var h264ProfileLevelID: String? {
            guard codecName == "h264", profile >= 0 else { return nil }
            let prefix: String
            switch profile & 0xFF {
            case 66: prefix = "42e0"
            case 77: prefix = "4d00"
            case 100 where profile & (1 << 11) == 0: prefix = "6400"
            default: return nil
            }
            let levelIDC = level > 0 && level < 256 ? level : 0x1F
            return prefix + (levelIDC < 16 ? "0" : "") + String(levelIDC, radix: 16)
        }
    }

    public let url: String
    /// The audio and video streams of the input.
    public private(set) var streams: [StreamInfo] = []
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let interrupt: AVInterrupt

    /// Opens `url` and reads enough to know its streams.
    /// - Parameters:
    ///   - options: demuxer and protocol options (`live_start_index` for HLS, `rw_timeout`, …).
    ///   - interrupt: `stop()` it from another thread to end a blocking open or read.
    public init(url: String, options: [(String, String)] = [], interrupt: AVInterrupt = AVInterrupt()) throws(AVMediaError) {
        AVLibrary.initialize()
        self.url = url
        self.interrupt = interrupt
        guard let ctx = avformat_alloc_context() else { throw .failed(call: "avformat_alloc_context", code: -1, message: "out of memory") }
        ctx.pointee.interrupt_callback = interrupt.callback
        var opened: UnsafeMutablePointer<AVFormatContext>? = ctx
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let rc = avformat_open_input(&opened, url, nil, &dictionary)
        av_dict_free(&dictionary)
        // On failure avformat_open_input frees the context itself.
        try AVMediaError.check(rc, "avformat_open_input(\(url))")
        context = opened
        do {
            try AVMediaError.check(avformat_find_stream_info(opened, nil), "avformat_find_stream_info")
        } catch {
            avformat_close_input(&context)
            throw error
        }
        guard let opened else { return }
        for i in 0..<Int(opened.pointee.nb_streams) {
            guard let st = opened.pointee.streams[i], let par = st.pointee.codecpar else { continue }
            let type = par.pointee.codec_type
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO else { continue }
            streams.append(StreamInfo(index: i, isVideo: type == AVMEDIA_TYPE_VIDEO,
                                      codecName: String(cString: avcodec_get_name(par.pointee.codec_id)),
                                      width: Int(par.pointee.width), height: Int(par.pointee.height),
                                      sampleRate: Int(par.pointee.sample_rate), channels: Int(par.pointee.ch_layout.nb_channels),
                                      profile: Int(par.pointee.profile), reordersFrames: par.pointee.video_delay > 0,
                                      level: Int(par.pointee.level)))
        }
    }

    deinit { avformat_close_input(&context) }

    /// The first video (or audio) stream.
    public func firstStream(video: Bool) -> StreamInfo? { streams.first { $0.isVideo == video } }

    /// The container's duration in microseconds, when it states one.
    public var durationUs: Int64? {
        guard let d = context?.pointee.duration, d != srtc_av_nopts_value, d > 0 else { return nil }
        return d
    }

    /// A decoder for stream `index`.
    /// - Parameter reorderDepth: when set, the decoder holds that many pictures back to put them
    ///   in display order (`has_b_frames`) from the start, whatever the stream's parameters say:
    ///   for H.264 whose SPS announced no reordering but whose packets reorder.
    public func makeDecoder(for index: Int, reorderDepth: Int? = nil) throws(AVMediaError) -> MediaDecoder {
        guard let context, index >= 0, index < Int(context.pointee.nb_streams), let st = context.pointee.streams[index],
              let par = st.pointee.codecpar else { throw .noStream("#\(index)") }
        guard let reorderDepth else { return try MediaDecoder(parameters: par, timeBase: st.pointee.time_base) }
        guard let copy = avcodec_parameters_alloc() else { throw .failed(call: "avcodec_parameters_alloc", code: -1, message: "out of memory") }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = copy
        defer { avcodec_parameters_free(&owned) }
        try AVMediaError.check(avcodec_parameters_copy(copy, par), "avcodec_parameters_copy")
        // `video_delay` becomes the context's `has_b_frames`, the H.264 decoder's output delay.
        copy.pointee.video_delay = max(copy.pointee.video_delay, Int32(reorderDepth))
        return try MediaDecoder(parameters: copy, timeBase: st.pointee.time_base)
    }

    /// The Annex B filter of H.264 stream `index` (its packets as RTP takes them).
    public func makeAnnexBFilter(for index: Int) throws(AVMediaError) -> H264AnnexBFilter {
        guard let context, index >= 0, index < Int(context.pointee.nb_streams), let st = context.pointee.streams[index],
              let par = st.pointee.codecpar else { throw .noStream("#\(index)") }
        return try H264AnnexBFilter(parameters: par, timeBase: st.pointee.time_base)
    }

    /// Reads the next packet of any stream into `packet`; `false` at the end of the input.
    /// - Throws: `.interrupted` when stopped; `.failed` on an I/O or format error.
    public func read(into packet: MediaPacket) throws(AVMediaError) -> Bool {
        guard let context else { throw .wrongState("closed") }
        av_packet_unref(packet.pointer)
        let rc = av_read_frame(context, packet.pointer)
        if rc == srtc_averror_eof { return false }
        try AVMediaError.check(rc, "av_read_frame")
        if let st = context.pointee.streams[Int(packet.pointer.pointee.stream_index)] { packet.timeBase = st.pointee.time_base }
        return true
    }
}
