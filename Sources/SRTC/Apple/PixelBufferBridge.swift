#if canImport(CoreVideo)
import CoreVideo
import RTCMedia

/// `CVPixelBuffer` ↔ `VideoPixelBuffer` on Apple platforms: the planes are copied row by row
/// (CoreVideo rows may be padded). BGRA (`kCVPixelFormatType_32BGRA`) and NV12
/// (`420YpCbCr8BiPlanar` video or full range) are accepted.
package enum PixelBufferBridge {
    package static func videoPixelBuffer(from pixelBuffer: CVPixelBuffer) -> VideoPixelBuffer? {
        CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
        let width = CVPixelBufferGetWidth(pixelBuffer), height = CVPixelBufferGetHeight(pixelBuffer)
        let type = CVPixelBufferGetPixelFormatType(pixelBuffer)
        switch type {
        case kCVPixelFormatType_32BGRA:
            guard var out = try? VideoPixelBuffer(format: .bgra, width: width, height: height),
                  let base = CVPixelBufferGetBaseAddress(pixelBuffer) else { return nil }
            let stride = CVPixelBufferGetBytesPerRow(pixelBuffer)
            out.withMutablePlane(0) { dst in
                for row in 0..<height {
                    let src = base.advanced(by: row * stride).assumingMemoryBound(to: UInt8.self)
                    for i in 0..<(width * 4) { dst[row * width * 4 + i] = src[i] }
                }
            }
            return out
        case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange:
            guard var out = try? VideoPixelBuffer(format: .nv12, width: width, height: height) else { return nil }
            for plane in 0..<2 {
                guard let base = CVPixelBufferGetBaseAddressOfPlane(pixelBuffer, plane) else { return nil }
                let stride = CVPixelBufferGetBytesPerRowOfPlane(pixelBuffer, plane)
                let layout = out.plane(plane)
                let rowBytes = plane == 0 ? width : out.chromaWidth * 2
                out.withMutablePlane(plane) { dst in
                    for row in 0..<layout.height {
                        let src = base.advanced(by: row * stride).assumingMemoryBound(to: UInt8.self)
                        for i in 0..<rowBytes { dst[row * layout.stride + i] = src[i] }
                    }
                }
            }
            return out
        default:
            return nil
        }
    }
}

extension LocalCustomVideoTrack {
    /// Pushes a `CVPixelBuffer` (BGRA or NV12) with a presentation time in microseconds (now when omitted).
    /// - Returns: false when the format is not supported or a processor dropped the frame.
    @discardableResult
    public func pushFrame(_ pixelBuffer: CVPixelBuffer, timestampUs: Int64? = nil, rotation: VideoRotation = .rotation0) -> Bool {
        guard let pixels = PixelBufferBridge.videoPixelBuffer(from: pixelBuffer) else { return false }
        return pushFrame(pixels, timestampUs: timestampUs, rotation: rotation)
    }
}
#endif

#if canImport(CoreVideo)
extension PixelBufferBridge {
    /// A new NV12 (`420YpCbCr8BiPlanarVideoRange`) `CVPixelBuffer` holding `buffer` (any format):
    /// what Vision (`SRTCRender`'s `VisionPersonSegmenter`) and `AVSampleBufferDisplayLayer` take.
    package static func cvPixelBuffer(from buffer: VideoPixelBuffer) -> CVPixelBuffer? {
        let nv12 = buffer.converted(to: .nv12)
        var created: CVPixelBuffer?
        let attributes = [kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any]()] as CFDictionary
        guard CVPixelBufferCreate(nil, nv12.width, nv12.height, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                  attributes, &created) == kCVReturnSuccess, let pixelBuffer = created else { return nil }
        CVPixelBufferLockBaseAddress(pixelBuffer, [])
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, []) }
        for plane in 0..<2 {
            guard let base = CVPixelBufferGetBaseAddressOfPlane(pixelBuffer, plane) else { return nil }
            let stride = CVPixelBufferGetBytesPerRowOfPlane(pixelBuffer, plane)
            let layout = nv12.plane(plane)
            nv12.withPlane(plane) { source in
                for row in 0..<layout.height {
                    let target = base.advanced(by: row * stride).assumingMemoryBound(to: UInt8.self)
                    for i in 0..<layout.stride { target[i] = source[row * layout.stride + i] }
                }
            }
        }
        return pixelBuffer
    }
}
#endif
