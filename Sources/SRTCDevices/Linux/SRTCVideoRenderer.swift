#if os(Linux)
import SRTCCore
import CX11
import Foundation
import Glibc
import RTCMedia
import Synchronization

/// A native video view on Linux: an X11 window showing the frames it is given, scaled to fit
/// (letterboxed, proportions kept). Pass it wherever a view is asked for (`startPlayRemoteVideo(view:…)`,
/// `requestOpenCamera(view:)`, `add(videoRenderer:)`); on Apple platforms the same name is a
/// `UIView` / `NSView`.
///
/// `render(frame:)` only keeps the newest frame and wakes the window's own thread, which draws
/// it (through MIT-SHM when the X server is local), follows resizes and redraws on exposure; a
/// slow display therefore skips frames instead of slowing the decoder. Closing the window from
/// the window manager hides nothing else: the view stops drawing and `isClosed` turns true.
///
/// ```swift
/// let view = try SRTCVideoRenderer(width: 1280, height: 720, title: "Alice")
/// remoteTrack.add(videoRenderer: view)
/// ```
public final class SRTCVideoRenderer: MirrorableRenderer, SizedVideoRenderer, Sendable {
    // MARK: - Types

    /// What the caller's threads and the window thread share.
    private final class Shared: Sendable {
        struct Pending {
            var frame: VideoFrame?
            var drawn = 0
            var closed = false
            var mirrored = false
            var size: (width: Int, height: Int)
            /// Mapped and not minimized (the window thread's view of MapNotify / UnmapNotify).
            var mapped = false
            /// Asked of the window thread by `resize(width:height:)`, `hide()`, `show()`.
            var requestedSize: (width: Int, height: Int)?
            var requestedShown: Bool?
        }

        let pending: Mutex<Pending>

        init(width: Int, height: Int) {
            pending = Mutex(Pending(size: (width, height)))
        }
    }

    // MARK: - Properties

    private let shared: Shared
    private let wake: (read: Int32, write: Int32)
    private let thread = Mutex<DeviceThread?>(nil)

    /// Opens a window.
    /// - Parameters:
    ///   - display: the X display (`:0`); nil uses $DISPLAY.
    ///   - x, y: where the window goes (window managers may place it elsewhere).
    ///   - width, height: its size in pixels.
    ///   - title: the window title.
    /// - Throws: `.systemError` when the display cannot be opened.
    public init(display: String? = nil, x: Int = 0, y: Int = 0, width: Int = 640, height: Int = 360,
                title: String = "SRTC") throws(SRTCError) {
        let connection = try X11Connection(display)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .systemError("no pipe for the video window") }
        wake = (fds[0], fds[1])
        _ = fcntl(wake.read, F_SETFL, O_NONBLOCK)
        shared = Shared(width: X11Window.clamped(width), height: X11Window.clamped(height))
        let window = X11Window(connection, x: x, y: y, width: width, height: height, title: title)
        windowId = UInt32(truncatingIfNeeded: window.window)
        let box = UncheckedBox(window)
        let drawing = DeviceThread(name: "srtc.x11.view") { [shared, wake] thread in
            Self.run(box.value, shared: shared, wake: wake.read, thread: thread)
        }
        thread.withLock { $0 = drawing }
    }

    deinit {
        close()
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    // MARK: - Public API

    /// Shows `frame` (the newest frame wins; called on any thread).
    public func render(frame: VideoFrame) {
        shared.pending.withLock { $0.frame = frame }
        wakeUp()
    }

    /// The X window's ID: what `WindowSource.id` and a share's `excludedWindowIds` name (the
    /// counterpart of macOS's `NSWindow.windowNumber`).
    public let windowId: UInt32

    /// Frames drawn so far.
    public var framesDrawn: Int { shared.pending.withLock { $0.drawn } }

    /// The window's current size.
    public var size: (width: Int, height: Int) { shared.pending.withLock { $0.size } }

    /// Whether pictures are shown flipped left to right (the local preview of a front camera;
    /// `SRTCEngine.setLocalPreviewMirror(_:)` sets it). Only what is drawn is flipped, never the
    /// frames. Takes effect at once: the shown frame is drawn again.
    public var mirrored: Bool {
        get { shared.pending.withLock { $0.mirrored } }
        set {
            let changed = shared.pending.withLock { p -> Bool in defer { p.mirrored = newValue }; return p.mirrored != newValue }
            if changed { wakeUp() }
        }
    }

    /// Whether the window was closed (by `close()` or the window manager).
    public var isClosed: Bool { shared.pending.withLock { $0.closed } }

    /// The window's size while it is on screen (mapped, not minimized, not closed); nil otherwise.
    /// With adaptive stream (`SRTCEngine.Configuration.adaptiveStream`) this picks the remote
    /// video's layer, and nil pauses it at the server.
    public var shownSize: (width: Int, height: Int)? {
        shared.pending.withLock { $0.closed || !$0.mapped ? nil : $0.size }
    }

    /// Resizes the window (a tile layout changing); `size` and `shownSize` follow once the X server
    /// did it.
    public func resize(width: Int, height: Int) {
        shared.pending.withLock { $0.requestedSize = (X11Window.clamped(width), X11Window.clamped(height)) }
        wakeUp()
    }

    /// Takes the window off screen (unmaps it): `shownSize` turns nil.
    public func hide() {
        shared.pending.withLock { $0.requestedShown = false }
        wakeUp()
    }

    /// Puts the window back on screen after `hide()`.
    public func show() {
        shared.pending.withLock { $0.requestedShown = true }
        wakeUp()
    }

    /// Closes the window; later frames are ignored.
    public func close() {
        thread.withLock { t in defer { t = nil }; return t }?.stop()
        shared.pending.withLock { $0.closed = true }
    }

    // MARK: - Internals

    private func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// The window thread: waits for a frame or an X event, draws, repeats.
    private static func run(_ window: X11Window, shared: Shared, wake: Int32, thread: DeviceThread) {
        var last: VideoFrame?
        var mirrored = false
        var drain = [UInt8](repeating: 0, count: 64)
        while thread.isRunning && !window.isGone {
            var pollers = [pollfd(fd: window.connection.fileDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if XPending(window.connection.display) == 0 { _ = poll(&pollers, 2, 100) }
            _ = drain.withUnsafeMutableBytes { read(wake, $0.baseAddress, $0.count) }
            let requests = shared.pending.withLock { p in
                defer { (p.requestedSize, p.requestedShown) = (nil, nil) }
                return (p.requestedSize, p.requestedShown)
            }
            if let size = requests.0 { window.resize(width: size.width, height: size.height) }
            if let shown = requests.1 { window.setShown(shown) }
            var redraw = window.handleEvents()
            let (next, mirror) = shared.pending.withLock { p in
                defer { p.frame = nil }
                (p.size, p.mapped) = ((window.width, window.height), window.isMapped)
                return (p.frame, p.mirrored)
            }
            if let next {
                last = next
                redraw = true
            }
            if mirror != mirrored {
                mirrored = mirror
                redraw = true
            }
            guard redraw, let frame = last else { continue }
            window.draw(frame, mirrored: mirrored)
            shared.pending.withLock { $0.drawn += 1 }
        }
        shared.pending.withLock { $0.closed = true }
    }
}
#endif
