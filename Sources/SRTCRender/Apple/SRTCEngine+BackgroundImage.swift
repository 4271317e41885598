#if canImport(UIKit) && canImport(CoreGraphics)
import CoreGraphics
import RTCMedia
import SRTCCore
import UIKit

extension SRTCEngine {
    /// Seed 000's `setVirtualBackgroundImage:` with a `UIImage`: the picture is drawn upright
    /// (its orientation applied) into BGRA pixels and handed to
    /// `setVirtualBackgroundImage(_: VideoPixelBuffer?)`, which scales it to cover the frame; nil
    /// goes back to blur. An image without pixels (a CIImage-backed one that cannot be drawn)
    /// changes nothing and answers false.
    @discardableResult
    public func setVirtualBackgroundImage(_ image: UIImage?) -> Bool {
        guard let image else {
            setVirtualBackgroundImage(nil as VideoPixelBuffer?)
            return true
        }
        guard let pixels = Self.bgraPixels(of: image) else { return false }
        setVirtualBackgroundImage(pixels)
        return true
    }

    /// The image's pixels, upright, as BGRA (premultiplied alpha first, little-endian: the
    /// byte order `VideoPixelBuffer.Format.bgra` means).
    static func bgraPixels(of image: UIImage) -> VideoPixelBuffer? {
        let width = Int(image.size.width * image.scale), height = Int(image.size.height * image.scale)
        guard width > 0, height > 0, var out = try? VideoPixelBuffer(format: .bgra, width: width, height: height) else { return nil }
        var drawn = false
        out.withMutablePlane(0) { plane in
            guard let context = CGContext(data: plane.baseAddress, width: width, height: height, bitsPerComponent: 8,
                                          bytesPerRow: width * 4, space: CGColorSpaceCreateDeviceRGB(),
                                          bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
            else { return }
            // UIKit draws top-down with the orientation applied; CoreGraphics' origin is bottom-left.
            context.translateBy(x: 0, y: CGFloat(height))
            context.scaleBy(x: image.scale, y: -image.scale)
            UIGraphicsPushContext(context)
            image.draw(in: CGRect(origin: .zero, size: image.size))
            UIGraphicsPopContext()
            drawn = true
        }
        return drawn ? out : nil
    }
}
#endif
