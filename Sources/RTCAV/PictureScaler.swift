// Picture scaling and pixel-format conversion with libswscale: composite tiles are scaled straight
// into their place in the output picture (no intermediate copy), and decoded frames in formats
// other than I420 are converted.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale
import RTCMedia

/// Scales I420 pictures into rectangles of other I420 pictures. Keeps one cached scaling context
/// (per source and target size); use from one thread at a time.
public final class PictureScaler {
    private var context: OpaquePointer?

    public init() {}

    deinit { sws_freeContext(context) }

    /// Scales `source` into the rectangle `x, y, width, height` of `target`; both I420. The
    /// rectangle's origin and size are rounded down to even numbers (chroma is subsampled by two).
    public func scale(_ source: VideoPixelBuffer, into target: inout VideoPixelBuffer, x: Int, y: Int, width: Int, height: Int) throws(AVMediaError) {
        guard source.format == .i420, target.format == .i420 else { throw .invalidParameter("scaling needs I420") }
        let (x, y, w, h) = (x & ~1, y & ~1, width & ~1, height & ~1)
        guard w >= 2, h >= 2, x >= 0, y >= 0, x + w <= target.width, y + h <= target.height else {
            throw .invalidParameter("rectangle \(x),\(y) \(w)x\(h) outside \(target.width)x\(target.height)")
        }
        context = sws_getCachedContext(context, Int32(source.width), Int32(source.height), AV_PIX_FMT_YUV420P,
                                       Int32(w), Int32(h), AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
        guard let context else { throw .failed(call: "sws_getCachedContext", code: -1, message: "unsupported scaling") }
        let sourcePlanes = (0..<3).map { source.plane($0) }
        let targetPlanes = (0..<3).map { target.plane($0) }
        source.data.withUnsafeBufferPointer { src in
            target.withMutableData { data in
                data.withUnsafeMutableBufferPointer { dst in
                    let s = src.baseAddress!, d = dst.baseAddress!
                    let sourcePointers: [UnsafePointer<UInt8>?] = (0..<3).map { s + sourcePlanes[$0].offset }
                    let sourceStrides = sourcePlanes.map { Int32($0.stride) }
                    let targetPointers: [UnsafeMutablePointer<UInt8>?] = [
                        d + targetPlanes[0].offset + y * targetPlanes[0].stride + x,
                        d + targetPlanes[1].offset + (y / 2) * targetPlanes[1].stride + x / 2,
                        d + targetPlanes[2].offset + (y / 2) * targetPlanes[2].stride + x / 2,
                    ]
                    let targetStrides = targetPlanes.map { Int32($0.stride) }
                    _ = sws_scale(context, sourcePointers, sourceStrides, 0, Int32(source.height), targetPointers, targetStrides)
                }
            }
        }
    }

    /// A decoded picture as a packed I420 buffer: copied when it is 4:2:0 planar already, converted otherwise.
    func i420(from frame: UnsafeMutablePointer<AVFrame>) throws(AVMediaError) -> VideoPixelBuffer? {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        guard width > 0, height > 0 else { return nil }
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        let planes = [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2]
        let strides = [frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2].map(Int.init)
        if format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P, planes.allSatisfy({ $0 != nil }), strides.allSatisfy({ $0 > 0 }) {
            do {
                return try VideoPixelBuffer(format: .i420, width: width, height: height,
                                            copyingPlanes: planes.map { UnsafeRawPointer($0!) }, strides: strides)
            } catch {
                throw .invalidParameter("decoded picture layout: \(error)")
            }
        }
        guard var output = try? VideoPixelBuffer(format: .i420, width: width, height: height) else { return nil }
        context = sws_getCachedContext(context, Int32(width), Int32(height), format, Int32(width), Int32(height),
                                       AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
        guard let context else { throw .failed(call: "sws_getCachedContext", code: -1, message: "unsupported pixel format") }
        let layouts = (0..<3).map { output.plane($0) }
        withUnsafePointer(to: &frame.pointee.data) { sourcePlanes in
            withUnsafePointer(to: &frame.pointee.linesize) { sourceStrides in
                sourcePlanes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
                    sourceStrides.withMemoryRebound(to: Int32.self, capacity: 8) { srcStrides in
                        output.withMutableData { data in
                            data.withUnsafeMutableBufferPointer { dst in
                                let d = dst.baseAddress!
                                let pointers: [UnsafeMutablePointer<UInt8>?] = layouts.map { d + $0.offset }
                                _ = sws_scale(context, src, srcStrides, 0, Int32(height), pointers, layouts.map { Int32($0.stride) })
                            }
                        }
                    }
                }
            }
        }
        return output
    }
}
