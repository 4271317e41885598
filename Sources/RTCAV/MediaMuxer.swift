// Writes elementary streams into a container with libavformat's own muxers: the field's standard
// implementation of WebM, MP4, HLS and FLV/RTMP, so no container bytes are written by hand here.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// A libavformat output: add streams, `start()`, write packets with microsecond times, `finish()`.
///
/// Use from one thread at a time. Timestamps may start anywhere; each stream's decode times are
/// kept strictly increasing (a repeated or earlier time is moved just past the previous one).
public final class MediaMuxer {
    // MARK: - Properties

    public let url: String
    public let container: MediaContainer
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let interrupt: AVInterrupt
    private var specs: [MediaStreamSpec] = []
    private var lastDTS: [Int64] = []
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var started = false
    private var finished = false
    private static let microseconds = AVRational(num: 1, den: 1_000_000)

    // MARK: - Public API

    /// Prepares an output.
    /// - Parameters:
    ///   - url: a file path, an HLS playlist path or an `rtmp://` URL.
    ///   - container: the container and its writing mode.
    ///   - interrupt: stops or bounds blocking network writes (RTMP).
    public init(url: String, container: MediaContainer, interrupt: AVInterrupt = AVInterrupt()) throws(AVMediaError) {
        AVLibrary.initialize()
        self.url = url
        self.container = container
        self.interrupt = interrupt
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let rc = avformat_alloc_output_context2(&ctx, nil, container.formatName, url)
        guard rc >= 0, let ctx else { throw .formatNotFound(container.formatName) }
        ctx.pointee.interrupt_callback = interrupt.callback
        context = ctx
        packet = av_packet_alloc()
    }

    deinit {
        if started && !finished { try? finish() }
        close()
    }

    /// Adds a stream; returns its index for `write`.
    @discardableResult
    public func addStream(_ spec: MediaStreamSpec) throws(AVMediaError) -> Int {
        guard let context, !started else { throw .wrongState("streams are added before start()") }
        guard container.accepts(spec.codec) else { throw .invalidParameter("\(container.formatName) does not hold \(spec.codec.rawValue)") }
        guard let stream = avformat_new_stream(context, nil), let par = stream.pointee.codecpar else {
            throw .failed(call: "avformat_new_stream", code: -1, message: "out of memory")
        }
        par.pointee.codec_id = spec.codec.codecID
        par.pointee.bit_rate = Int64(spec.bitrate)
        if spec.codec.isVideo {
            guard spec.width > 0, spec.height > 0 else { throw .invalidParameter("video needs a size") }
            par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            par.pointee.width = Int32(spec.width)
            par.pointee.height = Int32(spec.height)
            par.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            stream.pointee.time_base = AVRational(num: 1, den: 90_000)
            if spec.frameRate > 0 {
                stream.pointee.avg_frame_rate = AVRational(num: Int32(spec.frameRate), den: 1)
            }
        } else {
            guard spec.sampleRate > 0, spec.channels > 0 else { throw .invalidParameter("audio needs a rate and channels") }
            par.pointee.codec_type = AVMEDIA_TYPE_AUDIO
            par.pointee.sample_rate = Int32(spec.sampleRate)
            av_channel_layout_default(&par.pointee.ch_layout, Int32(spec.channels))
            par.pointee.frame_size = Int32(spec.frameSize)
            par.pointee.initial_padding = Int32(spec.initialPadding)
            stream.pointee.time_base = AVRational(num: 1, den: Int32(spec.sampleRate))
        }
        if !spec.extradata.isEmpty {
            guard let memory = av_mallocz(spec.extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
                throw .failed(call: "av_mallocz", code: -1, message: "out of memory")
            }
            let bytes = memory.assumingMemoryBound(to: UInt8.self)
            spec.extradata.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: $0.count) }
            par.pointee.extradata = bytes
            par.pointee.extradata_size = Int32(spec.extradata.count)
        }
        specs.append(spec)
        lastDTS.append(Int64.min)
        return specs.count - 1
    }

    /// Whether the container wants codec headers out of band (encoders then set `AV_CODEC_FLAG_GLOBAL_HEADER`).
    public var wantsGlobalHeader: Bool {
        guard let format = context?.pointee.oformat else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Opens the output (file or network) and writes the container header.
    public func start() throws(AVMediaError) {
        guard let context, !started else { throw .wrongState("start() twice") }
        guard !specs.isEmpty else { throw .invalidParameter("no streams") }
        if let format = context.pointee.oformat, format.pointee.flags & AVFMT_NOFILE == 0 {
            var callback = interrupt.callback
            try AVMediaError.check(avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &callback, nil), "avio_open2(\(url))")
        }
        var options: OpaquePointer?
        for (key, value) in container.options(url: url) { av_dict_set(&options, key, value, 0) }
        defer { av_dict_free(&options) }
        try AVMediaError.check(avformat_write_header(context, &options), "avformat_write_header")
        started = true
    }

    /// Writes one compressed frame.
    /// - Parameters:
    ///   - stream: the index `addStream` returned.
    ///   - data: the frame's bytes (VP8 frame, Opus packet, H.264 access unit, raw AAC frame).
    ///   - ptsUs: presentation time, microseconds.
    ///   - dtsUs: decode time when it differs (B-frames); the presentation time otherwise.
    ///   - durationUs: the frame's duration, when known.
    ///   - isKeyFrame: whether a decoder can start here.
    public func write(stream: Int, data: UnsafeRawBufferPointer, ptsUs: Int64, dtsUs: Int64? = nil, durationUs: Int64 = 0,
                      isKeyFrame: Bool) throws(AVMediaError) {
        guard let context, let packet, started, !finished else { throw .wrongState("write outside start()…finish()") }
        guard specs.indices.contains(stream), let st = context.pointee.streams[stream] else { throw .invalidParameter("no stream \(stream)") }
        guard data.count > 0, data.count < Int(Int32.max) else { return }
        try AVMediaError.check(av_new_packet(packet, Int32(data.count)), "av_new_packet")
        packet.pointee.data.update(from: data.baseAddress!.assumingMemoryBound(to: UInt8.self), count: data.count)
        let tb = st.pointee.time_base
        var pts = av_rescale_q(ptsUs, Self.microseconds, tb)
        var dts = av_rescale_q(dtsUs ?? ptsUs, Self.microseconds, tb)
        if dts <= lastDTS[stream] { dts = lastDTS[stream] + 1 }
        if pts < dts { pts = dts }
        lastDTS[stream] = dts
        packet.pointee.pts = pts
        packet.pointee.dts = dts
        packet.pointee.duration = av_rescale_q(durationUs, Self.microseconds, tb)
        packet.pointee.stream_index = Int32(stream)
        packet.pointee.flags = isKeyFrame ? AV_PKT_FLAG_KEY : 0
        // Takes the packet's reference (and resets it), whatever the outcome.
        try AVMediaError.check(av_interleaved_write_frame(context, packet), "av_interleaved_write_frame")
    }

    /// Writes one compressed frame held in an array.
    public func write(stream: Int, bytes: [UInt8], ptsUs: Int64, dtsUs: Int64? = nil, durationUs: Int64 = 0, isKeyFrame: Bool) throws(AVMediaError) {
        // `withUnsafeBytes` rethrows untyped errors: carry the typed one out.
        let failure: AVMediaError? = bytes.withUnsafeBytes { raw in
            do throws(AVMediaError) {
                try write(stream: stream, data: raw, ptsUs: ptsUs, dtsUs: dtsUs, durationUs: durationUs, isKeyFrame: isKeyFrame)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Writes an encoder's packet.
    public func write(stream: Int, packet: EncodedPacket) throws(AVMediaError) {
        try write(stream: stream, bytes: packet.data, ptsUs: packet.ptsUs, dtsUs: packet.dtsUs, durationUs: packet.durationUs,
                  isKeyFrame: packet.isKeyFrame)
    }

    /// Flushes interleaved packets, writes the trailer (cues, duration, final playlist) and closes the output.
    public func finish() throws(AVMediaError) {
        guard let context, started, !finished else { return }
        finished = true
        let rc = av_write_trailer(context)
        closeOutput()
        try AVMediaError.check(rc, "av_write_trailer")
    }

    /// Bytes written so far to a file or network output (0 for HLS, whose segments are separate files).
    public var bytesWritten: Int64 {
        guard let pb = context?.pointee.pb else { return 0 }
        return avio_tell(pb)
    }

    // MARK: - Internals

    private func closeOutput() {
        guard let context, let format = context.pointee.oformat, format.pointee.flags & AVFMT_NOFILE == 0 else { return }
        avio_closep(&context.pointee.pb)
    }

    private func close() {
        closeOutput()
        if let context { avformat_free_context(context) }
        context = nil
        av_packet_free(&packet)
    }
}
