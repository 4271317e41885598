// AV1 encoder over libaom with its real-time settings: `AOM_USAGE_REALTIME`, one pass, CBR, no
// look-ahead, and key frames on demand for the receiver's PLI/FIR. Each output is one temporal
// unit of OBUs (AV1 §7.5, low-overhead format) ready for an AV1 RTP packetizer (av1-rtp-spec §4).
// With a scalability mode other than L1T1 it encodes temporal and spatial layers through libaom's
// SVC controls (`AV1Encoder+Scalability.swift`). One instance is not thread-safe: use it from one
// thread.
import CAOM
import RTCWire

// MARK: - Types

/// Encodes `VideoFrame`s into AV1 temporal units.
public final class AV1Encoder {
    /// Encoder settings with real-time defaults: the common ones (`VideoEncoderSettings`: size,
    /// bitrate, frame rate, key-frame interval, threads) and libaom's speed.
    public struct Configuration: VideoEncoderConfiguration {
        public var settings: VideoEncoderSettings
        /// libaom speed for real-time use, 5…10: larger is faster with lower quality.
        public var cpuUsed: Int = 9
        /// The layers encoded (W3C webrtc-svc names): `.l1t1` one frame per temporal unit,
        /// `.l1t3` temporal layers, `.l2t3Key` also a half-size spatial layer.
        public var scalabilityMode: ScalabilityMode = .l1t1

        /// Real-time defaults for a `width`×`height` stream.
        public init(width: Int, height: Int) {
            settings = VideoEncoderSettings(width: width, height: height)
        }
    }

    /// The settings in force (width and height follow the frames given).
    public private(set) var configuration: Configuration
    let context = UnsafeMutablePointer<aom_codec_ctx_t>.allocate(capacity: 1)
    let image = UnsafeMutablePointer<aom_image_t>.allocate(capacity: 1)
    var settings = aom_codec_enc_cfg_t()
    private var isOpen = false
    private let keyFrame = KeyFrameRequest()
    var clock = EncoderClock()
    /// Scalable modes: temporal units since the last key picture (its pattern position is this
    /// modulo 4), nil before the first.
    var unitsSinceKey: Int?
    /// Scalable modes: the spatial layers encoded now (dynacast may leave the upper one out).
    public internal(set) var activeSpatialLayers = 1
    /// Scalable modes: libaom has encoded the top spatial layer since `open` (until then every
    /// layer is encoded, `AV1Encoder+Scalability.swift`).
    var topLayerEncoded = false

    // MARK: - Public API

    /// Creates an encoder.
    /// - Throws: `AV1CodecError.invalidConfiguration` or `.initializationFailed`.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        activeSpatialLayers = configuration.scalabilityMode.spatialLayers
        try open()
    }

    deinit {
        if isOpen { aom_codec_destroy(context) }
        context.deallocate()
        image.deallocate()
    }

    /// Asks for the next encoded frame to be a key frame (on a PLI or FIR from a receiver).
    public func requestKeyFrame() { keyFrame.request() }

    /// Encodes one frame (converted to I420 first when it is not).
    /// - Parameters:
    ///   - frame: the picture; a new size re-creates the encoder (and yields a key frame).
    ///   - forceKeyFrame: make this frame a key frame.
    /// - Returns: the temporal unit, or nil when the encoder produced none for this frame.
    public func encode(_ frame: VideoFrame, forceKeyFrame: Bool = false) throws -> EncodedVideoFrame? {
        let pixels = frame.buffer.toI420()
        if let resized = configuration.settings.resized(width: pixels.width, height: pixels.height) {
            var updated = configuration
            updated.settings = resized
            try reconfigure(updated)
        }
        if configuration.scalabilityMode != .l1t1 {
            return try encodeLayers(pixels, timestampUs: frame.timestampUs, forceKeyFrame: keyFrame.take(forced: forceKeyFrame))
        }
        let flags: aom_enc_frame_flags_t = keyFrame.take(forced: forceKeyFrame) ? aom_enc_frame_flags_t(AOM_EFLAG_FORCE_KF) : 0
        let (pts, duration) = clock.stamp(frame.timestampUs, frameRate: configuration.frameRate)

        let status = pixels.data.withUnsafeBufferPointer { bytes -> aom_codec_err_t in
            wrap(bytes.baseAddress!, width: pixels.width, height: pixels.height)
            return aom_codec_encode(context, image, aom_codec_pts_t(pts), UInt(duration), flags)
        }
        guard status == AOM_CODEC_OK else { throw AV1CodecError.encodeFailed(AV1CodecError.message(status, context)) }

        var data: [UInt8] = []
        let isKey = takeOutput(appendingTo: &data)
        guard !data.isEmpty else { return nil }
        return EncodedVideoFrame(data: data, isKeyFrame: isKey, timestampUs: frame.timestampUs, width: pixels.width, height: pixels.height)
    }

    // MARK: - Internals

    private func reconfigure(_ updated: Configuration) throws {
        if isOpen { aom_codec_destroy(context); isOpen = false }
        configuration = updated
        clock.reset()
        try open()
    }

    private func open() throws {
        let c = configuration
        try Self.validate(c)
        var status = aom_codec_enc_config_default(aom_codec_av1_cx(), &settings, UInt32(AOM_USAGE_REALTIME))
        guard status == AOM_CODEC_OK else { throw AV1CodecError.initializationFailed(AV1CodecError.message(status, nil)) }
        settings.applyRealTime(c.settings, buffer: RateControlBuffer(undershootPercent: 50, overshootPercent: 50, initialMilliseconds: 600))
        settings.g_timebase = aom_rational(num: 1, den: 90_000)
        settings.g_pass = AOM_RC_ONE_PASS
        settings.rc_end_usage = AOM_CBR
        settings.rc_resize_mode = 0
        // Scalable modes place key pictures themselves (at the start of the layer pattern). libaom
        // 3.6's SVC path dereferences null with a key-frame distance of 0 (seen here: a crash in
        // the first encode), so theirs is never 0.
        settings.kf_mode = c.keyFrameInterval > 0 && c.scalabilityMode == .l1t1 ? AOM_KF_AUTO : AOM_KF_DISABLED
        if c.scalabilityMode != .l1t1 { settings.kf_max_dist = UInt32(Int32.max) }
        status = srtc_aom_enc_init(context, &settings)
        guard status == AOM_CODEC_OK else { throw AV1CodecError.initializationFailed(AV1CodecError.message(status, context)) }
        isOpen = true
        status = srtc_aom_control_int(context, Int32(AOME_SET_CPUUSED.rawValue), Int32(c.cpuUsed))
        guard status == AOM_CODEC_OK else { throw AV1CodecError.initializationFailed(AV1CodecError.message(status, context)) }
        unitsSinceKey = nil
        topLayerEncoded = false
        if c.scalabilityMode != .l1t1 { try configureLayers() }
    }

    /// Appends the frames libaom produced for the last `aom_codec_encode` to `data`; returns
    /// whether one is a key frame.
    func takeOutput(appendingTo data: inout [UInt8]) -> Bool {
        var iterator: aom_codec_iter_t? = nil
        var isKey = false
        while let packet = aom_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == AOM_CODEC_CX_FRAME_PKT else { continue }
            let compressed = packet.pointee.data.frame
            guard let buffer = compressed.buf else { continue }
            data += UnsafeRawBufferPointer(start: buffer, count: compressed.sz)
            isKey = isKey || compressed.flags & aom_codec_frame_flags_t(AOM_FRAME_IS_KEY) != 0
        }
        return isKey
    }

    /// Points the reusable `aom_image_t` at packed I420 planes (no copy: libaom reads them during encode).
    func wrap(_ base: UnsafePointer<UInt8>, width: Int, height: Int) {
        let pixels = UnsafeMutablePointer(mutating: base)
        aom_img_wrap(image, AOM_IMG_FMT_I420, UInt32(width), UInt32(height), 1, pixels)
        let layout = PackedI420Layout(width: width, height: height)
        image.pointee.planes.0 = pixels + layout.offsets.0
        image.pointee.planes.1 = pixels + layout.offsets.1
        image.pointee.planes.2 = pixels + layout.offsets.2
        (image.pointee.stride.0, image.pointee.stride.1, image.pointee.stride.2) = layout.strides
    }

    private static func validate(_ c: Configuration) throws {
        if let invalid = c.settings.invalidSetting(smallestDimension: 16) { throw AV1CodecError.invalidConfiguration(invalid) }
        guard (5...10).contains(c.cpuUsed) else { throw AV1CodecError.invalidConfiguration("cpuUsed \(c.cpuUsed)") }
    }
}

/// libaom's encoder configuration takes the common real-time rate control as it is.
extension aom_codec_enc_cfg_t: RealTimeRateControlConfig {}
