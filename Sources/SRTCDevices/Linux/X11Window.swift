#if os(Linux)
import SRTCCore
import CX11
import Glibc
import RTCMedia

/// The X11 window behind `SRTCVideoRenderer`, owned by the view's thread: created and mapped,
/// its events handled (resize, exposure, the window manager's close button), frames drawn into
/// a window-sized image and put on screen.
final class X11Window {
    let connection: X11Connection
    let window: Window
    private let gc: GC
    private let deleteAtom: Atom
    private var image: X11Image?
    private(set) var width: Int
    private(set) var height: Int
    /// The window manager closed the window, or the server went away.
    private var closed = false
    /// Mapped (shown) and not iconified: MapNotify / UnmapNotify (a window manager unmaps a minimized window).
    private(set) var isMapped = false

    /// The largest side a window may have: the X protocol carries sizes as 16-bit values.
    static let maxSide = 32_767

    /// `side` as the X server can take it (1 ... `maxSide`).
    static func clamped(_ side: Int) -> Int { min(max(1, side), maxSide) }

    init(_ connection: X11Connection, x: Int, y: Int, width: Int, height: Int, title: String) {
        let (width, height) = (Self.clamped(width), Self.clamped(height))
        self.connection = connection
        self.width = width
        self.height = height
        let display = connection.display
        let black = XBlackPixel(display, connection.screen)
        let (left, top) = (Int32(min(max(x, -32_768), 32_767)), Int32(min(max(y, -32_768), 32_767)))
        window = XCreateSimpleWindow(display, connection.root, left, top, UInt32(width), UInt32(height), 0, black, black)
        XStoreName(display, window, title)
        X11Properties.markOwned(window, connection)
        XSelectInput(display, window, Int(ExposureMask | StructureNotifyMask))
        var atom = XInternAtom(display, "WM_DELETE_WINDOW", 0)
        deleteAtom = atom
        XSetWMProtocols(display, window, &atom, 1)
        gc = XDefaultGC(display, connection.screen)
        XMapWindow(display, window)
        XSync(display, 0)
    }

    deinit {
        image = nil
        if !connection.isLost {
            XDestroyWindow(connection.display, window)
            XSync(connection.display, 0)
        }
    }

    var isGone: Bool { closed || connection.isLost }

    /// Handles the queued events; returns whether the picture must be drawn again.
    func handleEvents() -> Bool {
        var redraw = false
        let display = connection.display
        while !connection.isLost && XPending(display) > 0 {
            var event = XEvent()
            XNextEvent(display, &event)
            switch event.type {
            case Expose:
                redraw = true
            case ConfigureNotify:
                let (w, h) = (Int(event.xconfigure.width), Int(event.xconfigure.height))
                if w != width || h != height {
                    (width, height) = (max(1, w), max(1, h))
                    image = nil
                    redraw = true
                }
            case MapNotify:
                isMapped = true
                redraw = true
            case UnmapNotify:
                isMapped = false
            case ClientMessage where UInt(event.xclient.data.l.0) == deleteAtom:
                closed = true
            default:
                break
            }
        }
        return redraw
    }

    /// Asks the X server for a new size; `width` and `height` follow its ConfigureNotify.
    func resize(width: Int, height: Int) {
        XResizeWindow(connection.display, window, UInt32(Self.clamped(width)), UInt32(Self.clamped(height)))
        XFlush(connection.display)
    }

    /// Maps (shows) or unmaps (hides) the window.
    func setShown(_ shown: Bool) {
        if shown { XMapWindow(connection.display, window) } else { XUnmapWindow(connection.display, window) }
        XFlush(connection.display)
    }

    /// Draws `frame` scaled to fit the window, black bars around it, flipped left to right when
    /// `mirrored`.
    func draw(_ frame: VideoFrame, mirrored: Bool) {
        if image == nil {
            image = try? X11Image(connection, width: width, height: height)
            if let image { image.pixels.initializeMemory(as: UInt8.self, repeating: 0, count: image.stride * height) }
        }
        guard let image, frame.width > 0, frame.height > 0 else { return }
        let fit = Self.fit(frame.width, frame.height, into: width, height)
        if fit.width > 0 && fit.height > 0 {
            frame.buffer.drawBGRA(into: image.pixels + fit.y * image.stride + fit.x * 4, width: fit.width, height: fit.height,
                                  stride: image.stride, mirrored: mirrored)
        }
        image.put(on: window, gc: gc)
    }

    /// The largest rectangle with the frame's proportions inside the window, centred.
    static func fit(_ frameWidth: Int, _ frameHeight: Int, into width: Int, _ height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        if frameWidth * height > width * frameHeight {
            let h = width * frameHeight / frameWidth
            return (0, (height - h) / 2, width, h)
        }
        let w = height * frameWidth / frameHeight
        return ((width - w) / 2, 0, w, height)
    }
}
#endif
