// VP8 and VP9 encoder over libvpx with real-time settings: one-pass CBR, no look-ahead, error-resilient mode
// (so a lost frame's damage is contained until the next key frame), `VPX_DL_REALTIME` deadline, and key frames
// on demand for the receiver's PLI/FIR. VP9 with a scalability mode other than L1T1 encodes
// spatial and temporal layers with libvpx's SVC (`VPXEncoder+Scalability.swift`). One instance is
// not thread-safe: use it from one thread.
import CVPX
import RTCWire

// MARK: - Types

/// The libvpx encoder under its VP8 name (the default codec of `VPXEncoder.Configuration`).
public typealias VP8Encoder = VPXEncoder

/// Encodes `VideoFrame`s into VP8 frames ready for `VP8Packetizer`, or VP9 frames (profile 0, one
/// layer, or the layers of `Configuration.scalabilityMode`) ready for `VP9Packetizer`.
public final class VPXEncoder {
    /// Encoder settings with real-time defaults: the common ones (`VideoEncoderSettings`: size,
    /// bitrate, frame rate, key-frame interval, threads) and libvpx's own.
    public struct Configuration: VideoEncoderConfiguration {
        public var settings: VideoEncoderSettings
        /// libvpx speed: -16…16; larger magnitude is faster with lower quality. -6 suits desktop CPUs,
        /// -8 and beyond suit slow cores or many streams.
        public var cpuUsed: Int = -6
        /// Error-resilient mode: no dependence on entropy state of lost frames (on by default for RTP).
        public var errorResilient: Bool = true
        /// Buffer fullness percentage below which the encoder may skip frames to hold the bitrate; 0 never skips.
        public var dropFrameThreshold: Int = 0
        /// `.vp8` or `.vp9` (profile 0); any other codec is an invalid configuration.
        public var codec: VideoCodec = .vp8
        /// Best quantizer the rate control may choose, 0…63.
        public var minQuantizer: Int = 2
        /// Worst quantizer the rate control may choose, 0…63.
        public var maxQuantizer: Int = 56
        /// VP9 only: the layers encoded (W3C webrtc-svc names): `.l1t1` one frame per picture,
        /// `.l1t3` temporal layers, `.l2t3Key` also a half-size spatial layer, predicted from the
        /// lower one only in key pictures. VP8 takes `.l1t1` alone.
        public var scalabilityMode: ScalabilityMode = .l1t1

        /// Real-time defaults for a `width`×`height` stream.
        public init(width: Int, height: Int, codec: VideoCodec = .vp8) {
            settings = VideoEncoderSettings(width: width, height: height)
            self.codec = codec
            // libvpx's VP9 real-time speeds are 5…9 (higher is faster); VP8's -6 means the same.
            if codec == .vp9 { cpuUsed = 7 }
        }
    }

    /// The settings in force (width and height follow the frames given).
    public private(set) var configuration: Configuration
    let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
    private let image = UnsafeMutablePointer<vpx_image_t>.allocate(capacity: 1)
    var settings = vpx_codec_enc_cfg_t()
    private var isOpen = false
    private let keyFrame = KeyFrameRequest()
    private var clock = EncoderClock()
    /// Scalable VP9: the spatial layers encoded now (dynacast may leave the upper ones out).
    public internal(set) var activeSpatialLayers = 1

    // MARK: - Public API

    /// Creates an encoder.
    /// - Throws: `VP8CodecError.invalidConfiguration` or `.initializationFailed`.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        activeSpatialLayers = configuration.scalabilityMode.spatialLayers
        try open()
    }

    deinit {
        if isOpen { vpx_codec_destroy(context) }
        context.deallocate()
        image.deallocate()
    }

    /// Asks for the next encoded frame to be a key frame (on a PLI or FIR from a receiver).
    public func requestKeyFrame() { keyFrame.request() }

    /// Encodes one frame. I420 pixels are handed to libvpx in place; NV12 and BGRA are converted to I420 first.
    /// - Parameters:
    ///   - frame: the picture; a new size re-creates the encoder (and yields a key frame).
    ///   - forceKeyFrame: make this frame a key frame.
    /// - Returns: the compressed frame, or nil when rate control skipped it (`dropFrameThreshold` > 0).
    public func encode(_ frame: VideoFrame, forceKeyFrame: Bool = false) throws -> EncodedVideoFrame? {
        let pixels = frame.buffer.toI420()
        if let resized = configuration.settings.resized(width: pixels.width, height: pixels.height) {
            var updated = configuration
            updated.settings = resized
            try reconfigure(updated)
        }
        let flags: vpx_enc_frame_flags_t = keyFrame.take(forced: forceKeyFrame) ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        let (pts, duration) = clock.stamp(frame.timestampUs, frameRate: configuration.frameRate)

        let status = pixels.data.withUnsafeBufferPointer { bytes -> vpx_codec_err_t in
            wrap(bytes.baseAddress!, width: pixels.width, height: pixels.height)
            return vpx_codec_encode(context, image, vpx_codec_pts_t(pts), UInt(duration), flags, UInt(VPX_DL_REALTIME))
        }
        guard status == VPX_CODEC_OK else { throw VP8CodecError.encodeFailed(VP8CodecError.message(status, context)) }

        var iterator: vpx_codec_iter_t? = nil
        var output: EncodedVideoFrame?
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let compressed = packet.pointee.data.frame
            guard let buffer = compressed.buf else { continue }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: compressed.sz)
            output = EncodedVideoFrame(data: Array(bytes), isKeyFrame: compressed.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0,
                                       timestampUs: frame.timestampUs, width: pixels.width, height: pixels.height)
            if configuration.scalabilityMode != .l1t1, output != nil { describeLayers(of: &output!, encoded: compressed.spatial_layer_encoded) }
        }
        return output
    }

    /// Changes the target bitrate (bits per second) between frames, e.g. on a bandwidth estimate.
    public func setBitrate(_ bitsPerSecond: Int) throws {
        var updated = configuration
        updated.bitrate = bitsPerSecond
        try Self.validate(updated)
        let previous = configuration
        configuration = updated
        settings.rc_target_bitrate = UInt32(bitsPerSecond / 1_000)
        if updated.scalabilityMode != .l1t1 { configureLayerRates() }
        let status = vpx_codec_enc_config_set(context, &settings)
        guard status == VPX_CODEC_OK else {
            configuration = previous
            throw VP8CodecError.encodeFailed(VP8CodecError.message(status, context))
        }
    }

    // MARK: - Internals

    private func reconfigure(_ updated: Configuration) throws {
        if isOpen { vpx_codec_destroy(context); isOpen = false }
        configuration = updated
        clock.reset()
        try open()
    }

    private func open() throws {
        let c = configuration
        try Self.validate(c)
        let vp9 = c.codec == .vp9
        var status = vpx_codec_enc_config_default(vp9 ? vpx_codec_vp9_cx() : vpx_codec_vp8_cx(), &settings, 0)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.initializationFailed(VP8CodecError.message(status, nil)) }
        settings.applyRealTime(c.settings, dropFrameThreshold: c.dropFrameThreshold,
                               buffer: RateControlBuffer(undershootPercent: 100, overshootPercent: 15, initialMilliseconds: 500))
        settings.g_timebase = vpx_rational(num: 1, den: 90_000)
        settings.g_pass = VPX_RC_ONE_PASS
        settings.g_error_resilient = c.errorResilient ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        settings.rc_end_usage = VPX_CBR
        settings.rc_min_quantizer = UInt32(c.minQuantizer)
        settings.rc_max_quantizer = UInt32(c.maxQuantizer)
        settings.rc_resize_allowed = 0
        settings.kf_mode = c.keyFrameInterval > 0 ? VPX_KF_AUTO : VPX_KF_DISABLED
        if c.scalabilityMode != .l1t1 { configureLayerRates() }
        status = vp9 ? srtc_vpx_enc_init_vp9(context, &settings, 0) : srtc_vpx_enc_init(context, &settings, 0)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.initializationFailed(VP8CodecError.message(status, context)) }
        isOpen = true
        // Cap key frame size relative to the per-frame budget so a key frame does not stall the link
        // (0.5 × optimal buffer × frame rate / 10, in percent of the average frame).
        let maxIntraPercent = 600 / 2 * c.frameRate / 10
        let controls: [(Int32, Int)] = vp9
            // VP9: cyclic-refresh adaptive quantization and one tile column, as real-time senders use;
            // no frame-parallel decoding mode (it costs quality and WebRTC receivers decode serially).
            ? [(Int32(VP8E_SET_CPUUSED.rawValue), c.cpuUsed),
               (Int32(VP8E_SET_MAX_INTRA_BITRATE_PCT.rawValue), maxIntraPercent),
               (Int32(VP9E_SET_AQ_MODE.rawValue), 3),
               (Int32(VP9E_SET_TILE_COLUMNS.rawValue), 0),
               (Int32(VP9E_SET_FRAME_PARALLEL_DECODING.rawValue), 0),
               (Int32(VP9E_SET_NOISE_SENSITIVITY.rawValue), 0)]
            : [(Int32(VP8E_SET_CPUUSED.rawValue), c.cpuUsed),
               (Int32(VP8E_SET_NOISE_SENSITIVITY.rawValue), 0),
               (Int32(VP8E_SET_STATIC_THRESHOLD.rawValue), 1),
               (Int32(VP8E_SET_TOKEN_PARTITIONS.rawValue), Int(VP8_ONE_TOKENPARTITION.rawValue)),
               (Int32(VP8E_SET_MAX_INTRA_BITRATE_PCT.rawValue), maxIntraPercent)]
        for (control, value) in controls {
            status = srtc_vpx_control_int(context, control, Int32(value))
            guard status == VPX_CODEC_OK else {
                throw VP8CodecError.initializationFailed(VP8CodecError.message(status, context))
            }
        }
        if c.scalabilityMode != .l1t1 { try configureLayers() }
    }

    /// Points the reusable `vpx_image_t` at packed I420 planes (no copy: libvpx reads them during encode).
    private func wrap(_ base: UnsafePointer<UInt8>, width: Int, height: Int) {
        let pixels = UnsafeMutablePointer(mutating: base)
        vpx_img_wrap(image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, pixels)
        let layout = PackedI420Layout(width: width, height: height)
        image.pointee.planes.0 = pixels + layout.offsets.0
        image.pointee.planes.1 = pixels + layout.offsets.1
        image.pointee.planes.2 = pixels + layout.offsets.2
        (image.pointee.stride.0, image.pointee.stride.1, image.pointee.stride.2) = layout.strides
    }

    private static func validate(_ c: Configuration) throws {
        guard c.codec == .vp8 || c.codec == .vp9 else { throw VP8CodecError.invalidConfiguration("codec \(c.codec.rawValue)") }
        guard c.codec == .vp9 || c.scalabilityMode == .l1t1 else {
            throw VP8CodecError.invalidConfiguration("scalabilityMode \(c.scalabilityMode.rawValue) with VP8")
        }
        if let invalid = c.settings.invalidSetting(smallestDimension: 2) { throw VP8CodecError.invalidConfiguration(invalid) }
        guard (-16...16).contains(c.cpuUsed) else { throw VP8CodecError.invalidConfiguration("cpuUsed \(c.cpuUsed)") }
        guard (0...100).contains(c.dropFrameThreshold) else {
            throw VP8CodecError.invalidConfiguration("dropFrameThreshold \(c.dropFrameThreshold)")
        }
        guard (0...63).contains(c.minQuantizer), (c.minQuantizer...63).contains(c.maxQuantizer) else {
            throw VP8CodecError.invalidConfiguration("quantizer \(c.minQuantizer)...\(c.maxQuantizer)")
        }
    }
}

/// libvpx's encoder configuration takes the common real-time rate control as it is.
extension vpx_codec_enc_cfg_t: RealTimeRateControlConfig {}
