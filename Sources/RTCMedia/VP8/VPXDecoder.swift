// VP8 and VP9 decoder over libvpx. Output is copied once out of libvpx's reference buffers (which it reuses on the
// next decode) into a packed I420 `VideoPixelBuffer`. One instance is not thread-safe: use it from one thread.
import CVPX

// MARK: - Types

/// The libvpx decoder under its VP8 name (its default codec).
public typealias VP8Decoder = VPXDecoder

/// Decodes VP8 or VP9 frames into I420 `VideoFrame`s. A VP9 picture of several spatial layers is
/// decoded from its layers' frames in one buffer, as the receive path assembles them; the picture
/// returned is the highest layer's.
public final class VPXDecoder {
    private let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)

    /// Whether libvpx reported the last decoded frame as corrupted (references lost): ask for a key frame.
    public private(set) var lastFrameCorrupted = false
    /// The codec decoded.
    public let codec: VideoCodec
    /// libvpx opened the context (`deinit` destroys it then).
    private var isOpen = false

    // MARK: - Public API

    /// Creates a decoder.
    /// - Parameters:
    ///   - codec: `.vp8` (the default) or `.vp9` (profile 0).
    ///   - threads: decoder threads; 1 by default.
    public init(codec: VideoCodec = .vp8, threads: Int = 1) throws {
        // Every stored property is set before the first throw, so `deinit` runs on failure too and
        // is the one place that frees the context (destroying it only once libvpx opened it).
        self.codec = codec
        guard codec == .vp8 || codec == .vp9 else { throw VP8CodecError.invalidConfiguration("codec \(codec.rawValue)") }
        var settings = vpx_codec_dec_cfg_t(threads: UInt32(max(1, min(threads, 16))), w: 0, h: 0)
        let status = codec == .vp9 ? srtc_vpx_dec_init_vp9(context, &settings, 0) : srtc_vpx_dec_init(context, &settings, 0)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.initializationFailed(VP8CodecError.message(status, nil)) }
        isOpen = true
    }

    deinit {
        if isOpen { vpx_codec_destroy(context) }
        context.deallocate()
    }

    /// Decodes one compressed frame.
    /// - Parameters:
    ///   - data: the VP8 bitstream of one frame (depacketized, without payload descriptors).
    ///   - timestampUs: presentation time to stamp on the output.
    /// - Returns: the picture, or nil when the frame produced none (e.g. a frame marked not to be shown).
    /// - Throws: `VP8CodecError.decodeFailed` on corrupt data or a delta frame before any key frame.
    public func decode(_ data: UnsafeRawBufferPointer, timestampUs: Int64) throws -> VideoFrame? {
        guard let base = data.baseAddress, !data.isEmpty, data.count <= Int(UInt32.max) else {
            throw VP8CodecError.invalidInput
        }
        let status = vpx_codec_decode(context, base.assumingMemoryBound(to: UInt8.self), UInt32(data.count), nil, 0)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.decodeFailed(VP8CodecError.message(status, context)) }
        var corrupted: Int32 = 0
        if srtc_vpx_control_int_ptr(context, Int32(VP8D_GET_FRAME_CORRUPTED.rawValue), &corrupted) == VPX_CODEC_OK {
            lastFrameCorrupted = corrupted != 0
        }
        var iterator: vpx_codec_iter_t? = nil
        var output: VideoFrame?
        while let image = vpx_codec_get_frame(context, &iterator) {
            output = VideoFrame(buffer: try Self.copy(image.pointee), timestampUs: timestampUs)
        }
        return output
    }

    /// Decodes one compressed frame held in an array.
    public func decode(_ data: [UInt8], timestampUs: Int64 = 0) throws -> VideoFrame? {
        try data.withUnsafeBytes { try decode($0, timestampUs: timestampUs) }
    }

    /// Decodes an encoded frame, keeping its timestamp.
    public func decode(_ frame: EncodedVideoFrame) throws -> VideoFrame? {
        try decode(frame.data, timestampUs: frame.timestampUs)
    }

    // MARK: - Internals

    private static func copy(_ image: vpx_image_t) throws -> VideoPixelBuffer {
        guard image.fmt == VPX_IMG_FMT_I420, let y = image.planes.0, let u = image.planes.1, let v = image.planes.2 else {
            throw VP8CodecError.decodeFailed("unexpected decoder output format")
        }
        return try VideoPixelBuffer(format: .i420, width: Int(image.d_w), height: Int(image.d_h),
                                    copyingPlanes: [UnsafeRawPointer(y), UnsafeRawPointer(u), UnsafeRawPointer(v)],
                                    strides: [Int(image.stride.0), Int(image.stride.1), Int(image.stride.2)])
    }
}
