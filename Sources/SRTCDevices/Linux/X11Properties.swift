#if os(Linux)
import SRTCCore
import CX11
import Glibc

/// Reading and writing the window properties that name a window and its owner (ICCCM §4.1.2,
/// EWMH `_NET_WM_NAME`, `_NET_WM_PID`, `_NET_CLIENT_LIST`).
enum X11Properties {
    /// Marks a window of this SDK as this process's (`_NET_WM_PID`, `WM_CLASS` "srtc"), so a
    /// share that excludes the current application finds it.
    static func markOwned(_ window: Window, _ connection: X11Connection) {
        let display = connection.display
        var pid = CLong(getpid())
        withUnsafeBytes(of: &pid) { bytes in
            _ = XChangeProperty(display, window, XInternAtom(display, "_NET_WM_PID", 0), srtc_XA_CARDINAL, 32, PropModeReplace,
                                bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), 1)
        }
        // WM_CLASS is two NUL-terminated strings: the instance name, then the class.
        let wmClass: [UInt8] = Array("srtc\0SRTC\0".utf8)
        wmClass.withUnsafeBufferPointer {
            _ = XChangeProperty(display, window, srtc_XA_WM_CLASS, srtc_XA_STRING, 8, PropModeReplace, $0.baseAddress, Int32($0.count))
        }
    }

    /// The 32-bit items of a property (`CARDINAL`, `WINDOW`), or nil when the window has none.
    /// Xlib hands format-32 items back as C longs.
    static func longs(_ window: Window, _ name: String, _ connection: X11Connection) -> [UInt]? {
        guard let (data, count, format) = raw(window, name, connection), format == 32 else { return nil }
        defer { XFree(data) }
        let items = UnsafeRawPointer(data).assumingMemoryBound(to: UInt.self)
        return (0..<count).map { items[$0] }
    }

    /// A text property (`_NET_WM_NAME` is UTF-8, `WM_NAME` Latin-1 or compound text: read as
    /// UTF-8 where it decodes), or nil.
    static func text(_ window: Window, _ name: String, _ connection: X11Connection) -> String? {
        guard let (data, count, format) = raw(window, name, connection), format == 8 else { return nil }
        defer { XFree(data) }
        return String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    }

    private static func raw(_ window: Window, _ name: String, _ connection: X11Connection)
        -> (UnsafeMutablePointer<UInt8>, Int, Int32)? {
        let display = connection.display
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        // 64 K items is far above any name or window list a desktop has.
        let status = XGetWindowProperty(display, window, XInternAtom(display, name, 0), 0, 65_536, 0, Atom(AnyPropertyType),
                                        &type, &format, &count, &after, &data)
        guard status == Success, let data else { return nil }
        guard type != 0, count > 0 else {
            XFree(data)
            return nil
        }
        return (data, Int(count), format)
    }
}
#endif
