#if os(Linux)
import SRTCCore
import CX11
import Foundation
import RTCMedia

/// Captures an X11 screen or one window at a frame rate, on a thread of its own. Each grab
/// (through MIT-SHM when the server is local) is converted to I420 and scaled down, keeping its
/// proportions, to fit the preset's size; a loop that wakes late skips the frames it missed
/// instead of bursting.
enum X11ScreenCapture {
    /// What is captured.
    enum Target: Sendable {
        /// A screen (nil: the display's default one), with the windows to paint black in it
        /// (X11 cannot leave a window out of a screen's pixels: their rectangles are blanked).
        case screen(Int32?, excluding: [UInt32])
        /// One top-level window: its own pixels, following its size.
        case window(UInt32)
    }

    /// Opens the display (on the calling thread, so errors are thrown here) and starts the loop.
    static func start(display: String?, target: Target = .screen(nil, excluding: []), preset: VideoPreset, logger: Logger,
                      deliver: @escaping @Sendable (VideoFrame) -> Void) throws(SRTCError) -> DeviceThread {
        let grabber = try Grabber(display: display, target: target)
        let box = UncheckedBox(grabber)
        return DeviceThread(name: "srtc.x11.capture") { thread in
            let grabber = box.value
            let interval = 1_000_000_000 / UInt64(max(1, preset.frameRate))
            let start = DispatchTime.now().uptimeNanoseconds
            var next = start
            while thread.isRunning {
                let now = DispatchTime.now().uptimeNanoseconds
                if now < next {
                    usleep(UInt32(min(100_000, (next - now) / 1_000)))
                    continue
                }
                next += interval
                if next <= now { next = now + interval }   // woke late: skip the missed slots
                switch grabber.grab() {
                case .ended(let why):
                    logger.warning("screen capture ended: \(why)")
                    return
                case .skipped:
                    continue
                case .picture(let pixels):
                    let i420 = pixels.toI420()
                    let target = fitted(width: pixels.width, height: pixels.height, within: preset)
                    let picture = target == (pixels.width, pixels.height) ? i420 : i420.scaled(width: target.width, height: target.height)
                    deliver(VideoFrame(buffer: picture, timestampUs: Int64((now - start) / 1_000)))
                }
            }
        }
    }

    /// The screen's size scaled down (proportions kept, even sides) to fit within the preset.
    static func fitted(width: Int, height: Int, within preset: VideoPreset) -> (width: Int, height: Int) {
        guard width > preset.width || height > preset.height else { return (width, height) }
        let scale = min(Double(preset.width) / Double(width), Double(preset.height) / Double(height))
        return (max(2, Int(Double(width) * scale) & ~1), max(2, Int(Double(height) * scale) & ~1))
    }

    /// One grab's outcome.
    enum Grab {
        case picture(VideoPixelBuffer)
        /// Nothing to show this time (the window is not mapped).
        case skipped
        case ended(String)
    }

    /// The connection, the drawable and its image, used by the capture thread only.
    final class Grabber {
        let connection: X11Connection
        let target: Target
        private var image: X11Image?

        init(display: String?, target: Target) throws(SRTCError) {
            if case .screen(let screen, _) = target {
                connection = try X11Connection(display, screen: screen)
            } else {
                connection = try X11Connection(display)
            }
            self.target = target
            if case .window(let id) = target, X11WindowList.geometry(Window(id), connection) == nil {
                throw .notFound("X window \(id)")
            }
        }

        func grab() -> Grab {
            guard !connection.isLost else { return .ended("the X display went away") }
            let drawable: Window
            let size: (width: Int, height: Int)
            switch target {
            case .screen:
                drawable = connection.root
                size = connection.screenSize
            case .window(let id):
                guard let geometry = X11WindowList.geometry(Window(id), connection) else { return .ended("the window went away") }
                guard geometry.viewable else { return .skipped }
                drawable = Window(id)
                size = (geometry.frame.width, geometry.frame.height)
            }
            if image?.width != size.width || image?.height != size.height {
                image = nil
                image = try? X11Image(connection, width: size.width, height: size.height)
            }
            guard let image, image.capture(from: drawable) else { return .skipped }
            if case .screen(_, let excluded) = target, !excluded.isEmpty {
                let rects = excluded.compactMap { X11WindowList.geometry(Window($0), connection) }.filter(\.viewable).map(\.frame)
                ScreenShareExclusion.blank(rects, in: image.pixels, width: image.width, height: image.height, stride: image.stride)
            }
            guard let pixels = try? VideoPixelBuffer(format: .bgra, width: image.width, height: image.height,
                                                     copyingPlanes: [UnsafeRawPointer(image.pixels)], strides: [image.stride]) else {
                return .skipped
            }
            return .picture(pixels)
        }
    }
}
#endif
