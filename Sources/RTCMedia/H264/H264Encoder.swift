// H.264 encoder over OpenH264 with real-time camera settings: Constrained Baseline (what every
// WebRTC peer decodes, profile-level-id 42e01f), bitrate rate control, no B-frames, IDR on
// demand for the receiver's PLI/FIR. Output is one Annex B access unit per frame, SPS and PPS
// before every IDR. One instance is not thread-safe: use it from one thread.
import COpenH264

/// Encodes `VideoFrame`s into H.264 access units ready for `H264Packetizer`.
public final class H264Encoder {
    /// Encoder settings with real-time defaults: the common ones (`VideoEncoderSettings`; the
    /// key-frame interval counts frames between automatic IDRs).
    public struct Configuration: VideoEncoderConfiguration {
        public var settings: VideoEncoderSettings
        /// Slices per picture: 1 (the default) writes one slice NAL unit per picture, which FU-A
        /// splits; more cut each picture into that many slices (OpenH264's fixed slice number mode),
        /// as encoders in multi-threaded or size-limited slice modes do (tests of the end-to-end
        /// encryption layout, docs/e2ee.md). 1…35.
        public var slicesPerFrame = 1

        public init(width: Int, height: Int) {
            settings = VideoEncoderSettings(width: width, height: height)
        }
    }

    public private(set) var configuration: Configuration
    private var encoder: UnsafeMutablePointer<ISVCEncoder?>?
    private let keyFrame = KeyFrameRequest()

    /// - Throws: `H264CodecError.invalidConfiguration` or `.initializationFailed`.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        try open()
    }

    deinit { close() }

    /// Asks for the next encoded frame to be an IDR.
    public func requestKeyFrame() { keyFrame.request() }

    /// Encodes one frame (converted to I420 when it is not).
    /// - Returns: the access unit, or nil when rate control skipped the frame.
    public func encode(_ frame: VideoFrame, forceKeyFrame: Bool = false) throws -> EncodedVideoFrame? {
        let pixels = frame.buffer.toI420()
        if let resized = configuration.settings.resized(width: pixels.width, height: pixels.height) {
            close()
            configuration.settings = resized
            try open()
        }
        guard let encoder, let vtable = encoder.pointee?.pointee else { throw H264CodecError.initializationFailed(-1) }
        if keyFrame.take(forced: forceKeyFrame) { _ = vtable.ForceIntraFrame(encoder, true) }

        var info = SFrameBSInfo()
        let status = pixels.data.withUnsafeBufferPointer { bytes -> Int32 in
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            let chromaWidth = (pixels.width + 1) / 2
            var picture = SSourcePicture()
            picture.iColorFormat = Int32(videoFormatI420.rawValue)
            picture.iPicWidth = Int32(pixels.width)
            picture.iPicHeight = Int32(pixels.height)
            picture.iStride = (Int32(pixels.width), Int32(chromaWidth), Int32(chromaWidth), 0)
            picture.pData = (base, base + pixels.width * pixels.height,
                             base + pixels.width * pixels.height + chromaWidth * ((pixels.height + 1) / 2), nil)
            picture.uiTimeStamp = frame.timestampUs / 1_000
            return vtable.EncodeFrame(encoder, &picture, &info)
        }
        guard status == 0 else { throw H264CodecError.encodeFailed(Int(status)) }
        guard info.eFrameType != videoFrameTypeSkip, info.eFrameType != videoFrameTypeInvalid else { return nil }
        var data: [UInt8] = []
        data.reserveCapacity(Int(info.iFrameSizeInBytes))
        withUnsafeBytes(of: &info.sLayerInfo) { raw in
            let layers = raw.bindMemory(to: SLayerBSInfo.self)
            for layer in layers.prefix(Int(info.iLayerNum)) {
                guard let lengths = layer.pNalLengthInByte, let buffer = layer.pBsBuf else { continue }
                let size = (0..<Int(layer.iNalCount)).reduce(0) { $0 + Int(lengths[$1]) }
                data.append(contentsOf: UnsafeBufferPointer(start: buffer, count: size))
            }
        }
        return EncodedVideoFrame(data: data, isKeyFrame: info.eFrameType == videoFrameTypeIDR,
                                 timestampUs: frame.timestampUs, width: pixels.width, height: pixels.height)
    }

    /// Changes the target bitrate (bits per second) between frames.
    public func setBitrate(_ bitsPerSecond: Int) throws {
        guard VideoEncoderSettings.bitrates.contains(bitsPerSecond) else {
            throw H264CodecError.invalidConfiguration("bitrate \(bitsPerSecond)")
        }
        guard let encoder, let vtable = encoder.pointee?.pointee else { return }
        var rate = SBitrateInfo(iLayer: SPATIAL_LAYER_ALL, iBitrate: Int32(bitsPerSecond))
        _ = vtable.SetOption(encoder, ENCODER_OPTION_BITRATE, &rate)
        configuration.bitrate = bitsPerSecond
    }

    // MARK: - Internals

    private func open() throws {
        let c = configuration
        if let invalid = c.settings.invalidSetting(smallestDimension: 16) { throw H264CodecError.invalidConfiguration(invalid) }
        var created: UnsafeMutablePointer<ISVCEncoder?>?
        let result = WelsCreateSVCEncoder(&created)
        guard result == 0, let created, let vtable = created.pointee?.pointee else {
            throw H264CodecError.initializationFailed(Int(result))
        }
        var quiet = Int32(WELS_LOG_QUIET)
        _ = vtable.SetOption(created, ENCODER_OPTION_TRACE_LEVEL, &quiet)
        var params = SEncParamExt()
        _ = vtable.GetDefaultParams(created, &params)
        params.iUsageType = CAMERA_VIDEO_REAL_TIME
        params.iPicWidth = Int32(c.width)
        params.iPicHeight = Int32(c.height)
        params.iTargetBitrate = Int32(c.bitrate)
        params.iMaxBitrate = Int32(c.bitrate * 3 / 2)
        params.iRCMode = RC_BITRATE_MODE
        params.fMaxFrameRate = Float(c.frameRate)
        params.uiIntraPeriod = UInt32(c.keyFrameInterval)
        params.bEnableFrameSkip = false
        params.iSpatialLayerNum = 1
        params.iTemporalLayerNum = 1
        params.iMultipleThreadIdc = UInt16(c.threads)
        // Every IDR repeats SPS and PPS with constant ids (a subscriber may join at any IDR).
        params.eSpsPpsIdStrategy = CONSTANT_ID
        params.sSpatialLayers.0.iVideoWidth = Int32(c.width)
        params.sSpatialLayers.0.iVideoHeight = Int32(c.height)
        params.sSpatialLayers.0.fFrameRate = Float(c.frameRate)
        params.sSpatialLayers.0.iSpatialBitrate = Int32(c.bitrate)
        params.sSpatialLayers.0.iMaxSpatialBitrate = Int32(c.bitrate * 3 / 2)
        params.sSpatialLayers.0.uiProfileIdc = PRO_BASELINE
        // Single slice: one NAL per picture, FU-A does the splitting (unless asked for more).
        if configuration.slicesPerFrame > 1 {
            params.sSpatialLayers.0.sSliceArgument.uiSliceMode = SM_FIXEDSLCNUM_SLICE
            params.sSpatialLayers.0.sSliceArgument.uiSliceNum = UInt32(min(configuration.slicesPerFrame, 35))
        } else {
            params.sSpatialLayers.0.sSliceArgument.uiSliceMode = SM_SINGLE_SLICE
        }
        let initialized = vtable.InitializeExt(created, &params)
        guard initialized == 0 else {
            WelsDestroySVCEncoder(created)
            throw H264CodecError.initializationFailed(Int(initialized))
        }
        var format = Int32(videoFormatI420.rawValue)
        _ = vtable.SetOption(created, ENCODER_OPTION_DATAFORMAT, &format)
        encoder = created
    }

    private func close() {
        guard let encoder else { return }
        if let vtable = encoder.pointee?.pointee { _ = vtable.Uninitialize(encoder) }
        WelsDestroySVCEncoder(encoder)
        self.encoder = nil
    }
}
