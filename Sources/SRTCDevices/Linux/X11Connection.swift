#if os(Linux)
import SRTCCore
import CX11
import Glibc
import Synchronization

/// One connection to an X server, used by one thread (a screen capture, a video window), and the
/// 32-bit image both exchange pixels through: a MIT-SHM segment when the server is local and
/// offers the extension (no copy through the socket), a plain client-side image otherwise.
///
/// Xlib's default handlers end the process on any protocol error or a lost server; the SDK
/// installs handlers that record the error instead, and marks a connection dead when the server
/// goes away, so the owning loop can stop.
final class X11Connection {
    let display: OpaquePointer
    let screen: Int32
    let root: Window
    let visual: UnsafeMutablePointer<Visual>
    let depth: Int32
    let hasSharedMemory: Bool
    /// Set by the I/O error handler when the server connection is lost.
    private let lost = UnsafeMutablePointer<Bool>.allocate(capacity: 1)

    private static let setUp: Void = {
        XInitThreads()
        _ = XSetErrorHandler { _, _ in 0 }       // a failed request is reported by its result
        _ = XSetIOErrorHandler { _ in 0 }        // the exit handler below decides what happens
    }()

    /// Opens `name` (`:0`, `:99`; nil uses $DISPLAY), on `screen` (nil: the display's default).
    /// - Throws: `.systemError` when no X server answers or its screen is not 24-bit TrueColor,
    ///   `.notFound` when the display has no such screen.
    init(_ name: String?, screen wanted: Int32? = nil) throws(SRTCError) {
        Self.setUp
        guard let display = XOpenDisplay(name) else { throw .systemError("cannot open X display \(name ?? "$DISPLAY")") }
        guard wanted.map({ $0 >= 0 && $0 < XScreenCount(display) }) ?? true else {
            XCloseDisplay(display)
            throw .notFound("screen \(wanted ?? 0) of X display \(name ?? "$DISPLAY")")
        }
        self.display = display
        lost.initialize(to: false)
        // Without this, a lost server would end the process.
        XSetIOErrorExitHandler(display, { _, flag in flag?.assumingMemoryBound(to: Bool.self).pointee = true }, UnsafeMutableRawPointer(lost))
        screen = wanted ?? XDefaultScreen(display)
        root = XRootWindow(display, screen)
        visual = XDefaultVisual(display, screen)
        depth = XDefaultDepth(display, screen)
        hasSharedMemory = XShmQueryExtension(display) != 0
        guard depth == 24 || depth == 32 else {
            XCloseDisplay(display)
            lost.deallocate()
            throw .systemError("X display \(name ?? "$DISPLAY") has depth \(depth); 24-bit TrueColor is needed")
        }
    }

    deinit {
        XCloseDisplay(display)
        lost.deallocate()
    }

    /// Whether the server connection was lost.
    var isLost: Bool { lost.pointee }

    /// The size of the root window (the screen).
    var screenSize: (width: Int, height: Int) {
        var attributes = XWindowAttributes()
        XGetWindowAttributes(display, root, &attributes)
        return (Int(attributes.width), Int(attributes.height))
    }

    /// The connection's file descriptor, to wait on with poll().
    var fileDescriptor: Int32 { XConnectionNumber(display) }
}

/// A 32-bit ZPixmap image of a fixed size on one connection, shared with the server through
/// MIT-SHM when possible. Pixels are B, G, R, X bytes (24-bit TrueColor, little-endian).
final class X11Image {
    let connection: X11Connection
    let image: UnsafeMutablePointer<XImage>
    let width: Int
    let height: Int
    private let segment: UnsafeMutablePointer<XShmSegmentInfo>?

    /// - Throws: `.systemError` when the image cannot be made.
    init(_ connection: X11Connection, width: Int, height: Int) throws(SRTCError) {
        self.connection = connection
        self.width = width
        self.height = height
        let display = connection.display
        if connection.hasSharedMemory, let shared = Self.sharedImage(connection, width: width, height: height) {
            (image, segment) = shared
            return
        }
        segment = nil
        let bytes = width * height * 4
        guard let data = malloc(bytes),
              let created = XCreateImage(display, connection.visual, UInt32(connection.depth), ZPixmap, 0,
                                         data.assumingMemoryBound(to: CChar.self), UInt32(width), UInt32(height), 32, Int32(width * 4)) else {
            throw .systemError("cannot create a \(width)x\(height) X image")
        }
        image = created
    }

    deinit {
        if let segment {
            XShmDetach(connection.display, segment)
            XSync(connection.display, 0)
            shmdt(segment.pointee.shmaddr)
            segment.deallocate()
        }
        // Frees the pixels of a client-side image; a shared image's destructor frees only the struct.
        _ = srtc_XDestroyImage(image)
    }

    /// The pixels: `height` rows of `stride` bytes.
    var pixels: UnsafeMutableRawPointer { UnsafeMutableRawPointer(image.pointee.data) }
    var stride: Int { Int(image.pointee.bytes_per_line) }

    /// Reads the top-left `width`×`height` pixels of `drawable` (the root window: the screen) into
    /// the image; false when the server refused (a window smaller than the image, or gone).
    func capture(from drawable: Drawable) -> Bool {
        let display = connection.display
        if segment != nil { return XShmGetImage(display, drawable, image, 0, 0, XAllPlanes()) != 0 }
        guard let fresh = XGetImage(display, drawable, 0, 0, UInt32(width), UInt32(height), XAllPlanes(), ZPixmap) else { return false }
        defer { _ = srtc_XDestroyImage(fresh) }
        let rows = min(height, Int(fresh.pointee.height)), rowBytes = min(stride, Int(fresh.pointee.bytes_per_line))
        for row in 0..<rows {
            (pixels + row * stride).copyMemory(from: UnsafeRawPointer(fresh.pointee.data) + row * Int(fresh.pointee.bytes_per_line),
                                                byteCount: rowBytes)
        }
        return true
    }

    /// Draws the image into `window` at (0, 0) and waits until the server has read it.
    func put(on window: Window, gc: GC) {
        let display = connection.display
        if segment != nil {
            XShmPutImage(display, window, gc, image, 0, 0, 0, 0, UInt32(width), UInt32(height), 0)
        } else {
            XPutImage(display, window, gc, image, 0, 0, 0, 0, UInt32(width), UInt32(height))
        }
        XSync(display, 0)
    }

    /// A MIT-SHM image: the segment is marked for removal as soon as both sides attached, so it
    /// cannot leak even if the process dies.
    private static func sharedImage(_ connection: X11Connection, width: Int, height: Int)
        -> (UnsafeMutablePointer<XImage>, UnsafeMutablePointer<XShmSegmentInfo>)? {
        let display = connection.display
        let segment = UnsafeMutablePointer<XShmSegmentInfo>.allocate(capacity: 1)
        segment.initialize(to: XShmSegmentInfo())
        guard let image = XShmCreateImage(display, connection.visual, UInt32(connection.depth), ZPixmap, nil, segment,
                                          UInt32(width), UInt32(height)) else {
            segment.deallocate()
            return nil
        }
        let bytes = Int(image.pointee.bytes_per_line) * height
        let id = shmget(0, bytes, Int32(IPC_CREAT) | 0o600)
        let address = id >= 0 ? shmat(id, nil, 0) : nil
        guard id >= 0, let address, address != UnsafeMutableRawPointer(bitPattern: -1) else {
            if id >= 0 { shmctl(id, Int32(IPC_RMID), nil) }
            _ = srtc_XDestroyImage(image)
            segment.deallocate()
            return nil
        }
        segment.pointee.shmid = id
        segment.pointee.shmaddr = address.assumingMemoryBound(to: CChar.self)
        segment.pointee.readOnly = 0
        image.pointee.data = segment.pointee.shmaddr
        let attached = XShmAttach(display, segment) != 0
        XSync(display, 0)
        shmctl(id, Int32(IPC_RMID), nil)
        guard attached else {
            shmdt(address)
            image.pointee.data = nil
            _ = srtc_XDestroyImage(image)
            segment.deallocate()
            return nil
        }
        return (image, segment)
    }
}
#endif
