// H.264 decoder over OpenH264: one Annex B access unit in, one I420 picture out (no reordering:
// WebRTC streams have no B-frames, so each picture is returned at once, Main and High included). The
// picture is copied out of OpenH264's buffers, which it reuses. Not thread-safe.
import COpenH264

/// Decodes H.264 access units into I420 `VideoFrame`s.
public final class H264Decoder {
    private var decoder: UnsafeMutablePointer<ISVCDecoder?>?

    public init() throws {
        var created: UnsafeMutablePointer<ISVCDecoder?>?
        let result = WelsCreateDecoder(&created)
        guard result == 0, let created, let vtable = created.pointee?.pointee else {
            throw H264CodecError.initializationFailed(Int(result))
        }
        var quiet = Int32(WELS_LOG_QUIET)
        _ = vtable.SetOption(created, DECODER_OPTION_TRACE_LEVEL, &quiet)
        var params = SDecodingParam()
        params.sVideoProperty.eVideoBsType = VIDEO_BITSTREAM_AVC
        // No concealment: a damaged picture is an error, and the receiver asks for an IDR.
        params.eEcActiveIdc = ERROR_CON_DISABLE
        let initialized = vtable.Initialize(created, &params)
        guard initialized == 0 else {
            WelsDestroyDecoder(created)
            throw H264CodecError.initializationFailed(Int(initialized))
        }
        decoder = created
    }

    deinit {
        guard let decoder else { return }
        if let vtable = decoder.pointee?.pointee { _ = vtable.Uninitialize(decoder) }
        WelsDestroyDecoder(decoder)
    }

    /// Decodes one access unit.
    /// - Returns: the picture, or nil when the unit produced none (parameter sets only).
    /// - Throws: `H264CodecError.decodeFailed` on corrupt data or a slice without its references.
    public func decode(_ data: UnsafeRawBufferPointer, timestampUs: Int64) throws -> VideoFrame? {
        guard let base = data.baseAddress, !data.isEmpty, data.count < Int(Int32.max) else { throw H264CodecError.invalidInput }
        guard let decoder, let vtable = decoder.pointee?.pointee else { throw H264CodecError.initializationFailed(-1) }
        var planes: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) = (nil, nil, nil)
        var info = SBufferInfo()
        let state = withUnsafeMutableBytes(of: &planes) { raw in
            vtable.DecodeFrameNoDelay(decoder, base.assumingMemoryBound(to: UInt8.self), Int32(data.count),
                                      raw.baseAddress!.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self), &info)
        }
        guard state.rawValue == dsErrorFree.rawValue else { throw H264CodecError.decodeFailed(Int(state.rawValue)) }
        if info.iBufferStatus != 1 {
            // Main and High pictures are held for display reordering (OpenH264 2.3 keeps one even
            // when the SPS says max_num_reorder_frames 0); a WebRTC stream is in display order
            // (no B-frames), so the held picture is this unit's: take it now.
            info = SBufferInfo()
            _ = withUnsafeMutableBytes(of: &planes) { raw in
                vtable.FlushFrame(decoder, raw.baseAddress!.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self), &info)
            }
        }
        guard info.iBufferStatus == 1, let y = planes.0, let u = planes.1, let v = planes.2 else { return nil }
        let buffer = info.UsrData.sSystemBuffer
        let width = Int(buffer.iWidth), height = Int(buffer.iHeight)
        let lumaStride = Int(buffer.iStride.0), chromaStride = Int(buffer.iStride.1)
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        var packed = [UInt8](repeating: 0, count: width * height + 2 * chromaWidth * chromaHeight)
        packed.withUnsafeMutableBufferPointer { out in
            var offset = 0
            for (plane, stride, w, h) in [(y, lumaStride, width, height), (u, chromaStride, chromaWidth, chromaHeight),
                                          (v, chromaStride, chromaWidth, chromaHeight)] {
                for row in 0..<h {
                    (out.baseAddress! + offset).update(from: plane + row * stride, count: w)
                    offset += w
                }
            }
        }
        return VideoFrame(buffer: try VideoPixelBuffer(format: .i420, width: width, height: height, data: packed),
                          timestampUs: timestampUs)
    }

    /// Decodes one access unit held in an array.
    public func decode(_ data: [UInt8], timestampUs: Int64 = 0) throws -> VideoFrame? {
        try data.withUnsafeBytes { try decode($0, timestampUs: timestampUs) }
    }
}
