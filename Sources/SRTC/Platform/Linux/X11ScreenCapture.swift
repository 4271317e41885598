#if os(Linux)
import Foundation
import RTCMedia

/// Captures an X11 screen (the root window, through MIT-SHM when the server is local) at a
/// frame rate, on a thread of its own. Each grab is converted to I420 and scaled down, keeping
/// its proportions, to fit the preset's size; a loop that wakes late skips the frames it missed
/// instead of bursting.
enum X11ScreenCapture {
    /// Opens the display (on the calling thread, so errors are thrown here) and starts the loop.
    static func start(display: String?, preset: VideoPreset, logger: Logger,
                      deliver: @escaping @Sendable (VideoFrame) -> Void) throws(SRTCError) -> DeviceThread {
        let connection = try X11Connection(display)
        let (width, height) = connection.screenSize
        let image = try X11Image(connection, width: width, height: height)
        let target = fitted(width: width, height: height, within: preset)
        let box = UncheckedBox(image)
        return DeviceThread(name: "srtc.x11.capture") { thread in
            let image = box.value
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
                guard !image.connection.isLost, image.capture() else {
                    logger.warning("screen capture ended: the X display went away")
                    return
                }
                let pixels = try? VideoPixelBuffer(format: .bgra, width: width, height: height,
                                                   copyingPlanes: [UnsafeRawPointer(image.pixels)], strides: [image.stride])
                guard let pixels else { continue }
                let i420 = pixels.toI420()
                let picture = target == (width, height) ? i420 : i420.scaled(width: target.width, height: target.height)
                deliver(VideoFrame(buffer: picture, timestampUs: Int64((now - start) / 1_000)))
            }
        }
    }

    /// The screen's size scaled down (proportions kept, even sides) to fit within the preset.
    static func fitted(width: Int, height: Int, within preset: VideoPreset) -> (width: Int, height: Int) {
        guard width > preset.width || height > preset.height else { return (width, height) }
        let scale = min(Double(preset.width) / Double(width), Double(preset.height) / Double(height))
        return (max(2, Int(Double(width) * scale) & ~1), max(2, Int(Double(height) * scale) & ~1))
    }
}
#endif
