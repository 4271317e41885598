import SRTCCore
import RTCMedia

/// The pixel layouts cameras deliver that the SDK accepts (V4L2 names).
enum CameraPixelFormat: String, Sendable, CaseIterable {
    /// Packed 4:2:2, `Y0 U Y1 V` (V4L2 `YUYV`): what most USB cameras give uncompressed.
    case yuyv
    /// Motion JPEG (V4L2 `MJPG`): each frame a JPEG; what USB cameras give at 720p and above.
    case mjpeg
    /// Semi-planar 4:2:0 (V4L2 `NV12`).
    case nv12
    /// Planar 4:2:0 (V4L2 `YU12`).
    case i420
}

/// Turns one camera buffer into an I420 picture. Keeps a JPEG decoder for MJPEG (libjpeg-turbo,
/// Linux; created on the first MJPEG frame); one converter per capture thread.
final class CameraFrameConverter {
    #if os(Linux)
    private var jpeg: JPEGDecoder?
    #endif

    init() {}

    /// Converts the `bytes` of one frame.
    /// - Parameters:
    ///   - stride: bytes per row of the first plane (V4L2 `bytesperline`); ignored for MJPEG.
    /// - Throws: `PixelBufferError` when the bytes do not hold a picture of that size,
    ///   `JPEGError` for an undecodable MJPEG frame.
    func convert(_ bytes: UnsafeRawBufferPointer, format: CameraPixelFormat, width: Int, height: Int, stride: Int) throws -> VideoPixelBuffer {
        switch format {
        case .yuyv:
            return try VideoPixelBuffer.i420(fromYUYV: bytes, width: width, height: height, stride: stride)
        case .nv12:
            return try VideoPixelBuffer.i420(fromNV12: bytes, width: width, height: height, stride: stride)
        case .i420:
            let chromaStride = stride / 2, chromaHeight = (height + 1) / 2
            let needed = stride * height + 2 * chromaStride * chromaHeight
            guard bytes.count >= needed, let base = bytes.baseAddress else {
                throw PixelBufferError.dataSizeMismatch(expected: needed, actual: bytes.count)
            }
            let u = base + stride * height
            return try VideoPixelBuffer(format: .i420, width: width, height: height,
                                        copyingPlanes: [base, u, u + chromaStride * chromaHeight],
                                        strides: [stride, chromaStride, chromaStride])
        case .mjpeg:
            #if os(Linux)
            if jpeg == nil { jpeg = try JPEGDecoder() }
            return try jpeg!.decode(bytes)
            #else
            throw SRTCError.systemError("MJPEG decoding uses libjpeg-turbo, linked on Linux only")
            #endif
        }
    }
}
