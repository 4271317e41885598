#if canImport(UIKit) || canImport(AppKit)
import CoreVideo
import Foundation
import SRTC
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

/// A `ViewCaptureSource` that snapshots a UIKit / AppKit view (Apple platforms only; on Linux the
/// app implements `ViewCaptureSource` itself). Each tick draws the view into a BGRA
/// `CVPixelBuffer` on the main thread and converts it for the encoder.
///
/// ```swift
/// try await meeting.startViewCaptureShare(source: ViewSnapshotSource(view: canvasView))
/// ```
// @unchecked Sendable: `view` is set in init and never reassigned, and is dereferenced only on the main thread (`DispatchQueue.main.sync`).
public final class ViewSnapshotSource: ViewCaptureSource, @unchecked Sendable {
    #if canImport(UIKit)
    public typealias PlatformView = UIView
    #else
    public typealias PlatformView = NSView
    #endif

    private weak var view: PlatformView?

    public init(view: PlatformView) { self.view = view }

    public func captureViewFrame() -> VideoFrame? {
        DispatchQueue.main.sync { () -> VideoFrame? in
            guard let view, let buffer = Self.snapshot(view) else { return nil }
            return VideoFrame(buffer: buffer, timestampUs: Int64(DispatchTime.now().uptimeNanoseconds / 1_000))
        }
    }

    /// Draws `view` into a BGRA picture of its size in pixels.
    private static func snapshot(_ view: PlatformView) -> VideoPixelBuffer? {
        #if canImport(UIKit)
        let scale = view.window?.screen.scale ?? 1
        #else
        let scale = view.window?.backingScaleFactor ?? 1
        #endif
        let width = Int(view.bounds.width * scale) & ~1, height = Int(view.bounds.height * scale) & ~1
        guard width > 0, height > 0 else { return nil }
        var pixelBuffer: CVPixelBuffer?
        guard CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &pixelBuffer) == kCVReturnSuccess,
              let pixelBuffer else { return nil }
        CVPixelBufferLockBaseAddress(pixelBuffer, [])
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, []) }
        guard let context = CGContext(data: CVPixelBufferGetBaseAddress(pixelBuffer), width: width, height: height, bitsPerComponent: 8,
                                      bytesPerRow: CVPixelBufferGetBytesPerRow(pixelBuffer), space: CGColorSpaceCreateDeviceRGB(),
                                      bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        else { return nil }
        #if canImport(UIKit)
        context.translateBy(x: 0, y: CGFloat(height))
        context.scaleBy(x: scale, y: -scale)
        UIGraphicsPushContext(context)
        view.drawHierarchy(in: view.bounds, afterScreenUpdates: false)
        UIGraphicsPopContext()
        #else
        context.scaleBy(x: scale, y: scale)
        view.layer?.render(in: context)
        #endif
        guard let base = CVPixelBufferGetBaseAddress(pixelBuffer) else { return nil }
        return try? VideoPixelBuffer(format: .bgra, width: width, height: height, copyingPlanes: [UnsafeRawPointer(base)],
                                     strides: [CVPixelBufferGetBytesPerRow(pixelBuffer)])
    }
}
#endif
