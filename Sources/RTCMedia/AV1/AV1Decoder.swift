// AV1 decoder over dav1d, set to hand back each picture as soon as its temporal unit is in
// (`max_frame_delay` 1). Output is copied once out of dav1d's picture into a packed I420
// `VideoPixelBuffer`. One instance is not thread-safe: use it from one thread.
import CDav1d

// MARK: - Types

/// Decodes AV1 temporal units (low-overhead OBU format, AV1 §5.2) into I420 `VideoFrame`s.
public final class AV1Decoder {
    private var context: OpaquePointer?

    // MARK: - Public API

    /// Creates a decoder.
    /// - Parameter threads: decoder threads; 1 by default.
    /// - Throws: `AV1CodecError.initializationFailed`.
    public init(threads: Int = 1) throws {
        var settings = Dav1dSettings()
        dav1d_default_settings(&settings)
        settings.n_threads = Int32(max(1, min(threads, 16)))
        settings.max_frame_delay = 1
        let status = dav1d_open(&context, &settings)
        guard status == 0, context != nil else { throw AV1CodecError.initializationFailed("dav1d_open \(status)") }
    }

    deinit { dav1d_close(&context) }

    /// Decodes one temporal unit.
    /// - Parameters:
    ///   - data: its OBUs (depacketized).
    ///   - timestampUs: presentation time to stamp on the output.
    /// - Returns: the picture (of a unit with several spatial layers, the last: the highest
    ///   layer's), or nil when the unit produced none.
    /// - Throws: `AV1CodecError.decodeFailed` on data dav1d cannot decode.
    public func decode(_ data: UnsafeRawBufferPointer, timestampUs: Int64) throws -> VideoFrame? {
        guard let source = data.baseAddress, !data.isEmpty else { throw AV1CodecError.invalidInput }
        var input = Dav1dData()
        guard let buffer = dav1d_data_create(&input, data.count) else { throw AV1CodecError.decodeFailed(-12) }
        buffer.update(from: source.assumingMemoryBound(to: UInt8.self), count: data.count)
        defer { dav1d_data_unref(&input) }
        var output: VideoFrame?
        while input.sz > 0 {
            let sent = dav1d_send_data(context, &input)
            if sent != 0 && sent != srtc_dav1d_again() { throw AV1CodecError.decodeFailed(sent) }
            if let picture = try nextPicture(timestampUs: timestampUs) { output = picture }
        }
        // A scalable unit holds a frame per spatial layer: the last picture is the highest layer's.
        while let picture = try nextPicture(timestampUs: timestampUs) { output = picture }
        return output
    }

    /// Decodes one temporal unit held in an array.
    public func decode(_ data: [UInt8], timestampUs: Int64 = 0) throws -> VideoFrame? {
        try data.withUnsafeBytes { try decode($0, timestampUs: timestampUs) }
    }

    // MARK: - Internals

    private func nextPicture(timestampUs: Int64) throws -> VideoFrame? {
        var picture = Dav1dPicture()
        let status = dav1d_get_picture(context, &picture)
        if status == srtc_dav1d_again() { return nil }
        guard status == 0 else { throw AV1CodecError.decodeFailed(status) }
        defer { dav1d_picture_unref(&picture) }
        guard picture.p.layout == DAV1D_PIXEL_LAYOUT_I420, picture.p.bpc == 8,
              let y = picture.data.0, let u = picture.data.1, let v = picture.data.2 else {
            throw AV1CodecError.unsupportedPicture("layout \(picture.p.layout.rawValue), \(picture.p.bpc) bits")
        }
        let buffer = try VideoPixelBuffer(format: .i420, width: Int(picture.p.w), height: Int(picture.p.h),
                                          copyingPlanes: [UnsafeRawPointer(y), UnsafeRawPointer(u), UnsafeRawPointer(v)],
                                          strides: [Int(picture.stride.0), Int(picture.stride.1), Int(picture.stride.1)])
        return VideoFrame(buffer: buffer, timestampUs: timestampUs)
    }
}

extension AV1Decoder: VideoDecoding {
    /// dav1d reports a frame it cannot decode as an error: a picture it returns is intact.
    public func decodeIntact(_ frame: EncodedVideoFrame) throws -> VideoFrame? {
        try decode(frame.data, timestampUs: frame.timestampUs)
    }
}

extension AV1Encoder: ScalableVideoEncoding {}
