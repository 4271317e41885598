// H.264 for HLS, RTMP and MP4, encoded by libavcodec with libx264 (or OpenH264 when libx264 is
// missing), tuned for live output: no B-frames, no look-ahead, a key frame every GOP so HLS
// segments can be cut on time.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale
import RTCMedia

/// Encodes I420 frames to H.264 through libavcodec, for containers (`RTCMedia.H264Encoder` is
/// OpenH264 for RTP).
public final class AVH264Encoder {
    /// Encoding parameters: the common ones (`VideoEncoderSettings`, with live-output defaults:
    /// 2 Mbit/s, a key frame every 60 frames, 2 s at 30 fps, one per HLS segment; `threads` 0
    /// leaves the count to the codec) and libavcodec's own.
    public struct Configuration: VideoEncoderConfiguration {
        public var settings: VideoEncoderSettings
        /// x264 speed preset; `ultrafast` and `veryfast` suit live output on few cores.
        public var preset: String = "veryfast"
        /// Codec headers out of band (MP4, FLV and HLS muxers ask for it: `MediaMuxer.wantsGlobalHeader`).
        public var globalHeader: Bool = false
        /// The `level_idc` the SPS states (31 for 3.1), when it must match one signalled already;
        /// nil lets the encoder pick it from the size, rate and bitrate.
        public var level: Int?

        public init(width: Int, height: Int) {
            settings = VideoEncoderSettings(width: width, height: height)
            settings.bitrate = 2_000_000
            settings.keyFrameInterval = 60
        }
    }

    public let configuration: Configuration
    private let encoder: EncoderContext
    private var frame: UnsafeMutablePointer<AVFrame>?
    private static let timeBase = AVRational(num: 1, den: 90_000)

    /// Opens libx264 (or libopenh264).
    public init(configuration: Configuration) throws(AVMediaError) {
        let c = configuration
        guard c.width >= 16, c.height >= 16, c.width % 2 == 0, c.height % 2 == 0, c.width <= 8192, c.height <= 8192 else {
            throw .invalidParameter("H.264 size \(c.width)x\(c.height) (even, 16...8192)")
        }
        guard (1...120).contains(c.frameRate), c.bitrate > 0, c.keyFrameInterval > 0 else { throw .invalidParameter("frame rate, bitrate or GOP") }
        self.configuration = c
        encoder = try EncoderContext(names: ["libx264", "libopenh264"],
                                     options: [("preset", c.preset), ("tune", "zerolatency"), ("forced-idr", "1")]) { ctx in
            ctx.pointee.width = Int32(c.width)
            ctx.pointee.height = Int32(c.height)
            ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            ctx.pointee.time_base = Self.timeBase
            ctx.pointee.framerate = AVRational(num: Int32(c.frameRate), den: 1)
            ctx.pointee.bit_rate = Int64(c.bitrate)
            ctx.pointee.rc_max_rate = Int64(c.bitrate) * 3 / 2
            ctx.pointee.rc_buffer_size = Int32(clamping: c.bitrate)
            ctx.pointee.gop_size = Int32(c.keyFrameInterval)
            ctx.pointee.keyint_min = Int32(c.keyFrameInterval)
            ctx.pointee.max_b_frames = 0
            ctx.pointee.thread_count = Int32(c.threads)
            if let level = c.level { ctx.pointee.level = Int32(level) }
            if c.globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }
        frame = av_frame_alloc()
    }

    deinit { av_frame_free(&frame) }

    /// The encoder in use (`libx264` or `libopenh264`).
    public var encoderName: String { encoder.name }

    /// The stream to add to a muxer (with the SPS/PPS record when `globalHeader` is set).
    public var streamSpec: MediaStreamSpec {
        .video(.h264, width: configuration.width, height: configuration.height, frameRate: configuration.frameRate,
               extradata: encoder.extradata, bitrate: configuration.bitrate)
    }

    /// Encodes one frame (converted to I420 and the configured size is required).
    /// - Parameters:
    ///   - frame: the picture; its size must be the configured size.
    ///   - ptsUs: its presentation time, microseconds, increasing.
    ///   - forceKeyFrame: make this frame an IDR.
    /// - Returns: the packets the encoder finished (zero or more).
    public func encode(_ picture: VideoFrame, ptsUs: Int64, forceKeyFrame: Bool = false) throws(AVMediaError) -> [EncodedPacket] {
        guard picture.width == configuration.width, picture.height == configuration.height else {
            throw .invalidParameter("frame \(picture.width)x\(picture.height), encoder \(configuration.width)x\(configuration.height)")
        }
        guard let frame else { throw .wrongState("no frame") }
        let buffer = picture.buffer.format == .i420 ? picture.buffer : picture.buffer.toI420()
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(configuration.width)
        frame.pointee.height = Int32(configuration.height)
        frame.pointee.pts = av_rescale_q(ptsUs, AVRational(num: 1, den: 1_000_000), Self.timeBase)
        frame.pointee.pict_type = forceKeyFrame ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        let planes = (0..<3).map { buffer.plane($0) }
        return try buffer.data.withUnsafeBufferPointer { (bytes) throws(AVMediaError) -> [EncodedPacket] in
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            frame.pointee.data.0 = base + planes[0].offset
            frame.pointee.data.1 = base + planes[1].offset
            frame.pointee.data.2 = base + planes[2].offset
            frame.pointee.linesize.0 = Int32(planes[0].stride)
            frame.pointee.linesize.1 = Int32(planes[1].stride)
            frame.pointee.linesize.2 = Int32(planes[2].stride)
            // The frame is not reference-counted: libavcodec copies it before this returns.
            defer {
                frame.pointee.data.0 = nil
                frame.pointee.data.1 = nil
                frame.pointee.data.2 = nil
            }
            return try encoder.send(frame)
        }
    }

    /// Drains the frames the encoder still holds (at the end of the stream).
    public func flush() throws(AVMediaError) -> [EncodedPacket] {
        try encoder.send(nil)
    }
}
