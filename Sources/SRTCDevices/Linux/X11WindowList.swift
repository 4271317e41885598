#if os(Linux)
import SRTCCore
import CX11

/// The screens and the application windows of an X display, as `ScreenCaptureSources` lists
/// them. With an EWMH window manager its `_NET_CLIENT_LIST` names the application windows;
/// without one (a bare X server, Xvfb) they are the root's mapped, managed children.
enum X11WindowList {
    /// Where a window is on its screen and whether it is shown.
    struct Geometry {
        var frame: ScreenRect
        var viewable: Bool
    }

    /// The window's frame in its root's pixels, or nil when there is no such window.
    static func geometry(_ window: Window, _ connection: X11Connection) -> Geometry? {
        let display = connection.display
        var attributes = XWindowAttributes()
        guard XGetWindowAttributes(display, window, &attributes) != 0 else { return nil }
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        guard XTranslateCoordinates(display, window, attributes.root, 0, 0, &x, &y, &child) != 0 else { return nil }
        return Geometry(frame: ScreenRect(x: Int(x), y: Int(y), width: Int(attributes.width), height: Int(attributes.height)),
                        viewable: attributes.map_state == IsViewable)
    }

    /// Every screen of the display.
    static func displays(_ connection: X11Connection, server: String?) -> [DisplaySource] {
        let display = connection.display
        return (0..<XScreenCount(display)).map {
            DisplaySource(id: UInt32($0), width: Int(XDisplayWidth(display, $0)), height: Int(XDisplayHeight(display, $0)), server: server)
        }
    }

    /// The shown application windows of the connection's screen, bottom to top.
    static func windows(_ connection: X11Connection, server: String?) -> [WindowSource] {
        let display = connection.display
        let candidates = X11Properties.longs(connection.root, "_NET_CLIENT_LIST", connection).map { $0.map { Window($0) } }
            ?? children(of: connection.root, connection)
        return candidates.compactMap { window -> WindowSource? in
            var attributes = XWindowAttributes()
            // Menus and tooltips (override-redirect) and input-only windows are not applications.
            guard XGetWindowAttributes(display, window, &attributes) != 0, attributes.map_state == IsViewable,
                  attributes.override_redirect == 0, attributes.`class` == InputOutput,
                  let geometry = geometry(window, connection) else { return nil }
            let title = X11Properties.text(window, "_NET_WM_NAME", connection) ?? X11Properties.text(window, "WM_NAME", connection) ?? ""
            // WM_CLASS: instance NUL class NUL; the class names the application.
            let wmClass = X11Properties.text(window, "WM_CLASS", connection)?.split(separator: "\0").last.map(String.init)
            let pid = X11Properties.longs(window, "_NET_WM_PID", connection)?.first.map { Int32(truncatingIfNeeded: $0) }
            return WindowSource(id: UInt32(truncatingIfNeeded: window), title: title, applicationName: wmClass, processId: pid,
                                frame: geometry.frame, server: server)
        }
    }

    private static func children(of root: Window, _ connection: X11Connection) -> [Window] {
        var rootReturn: Window = 0, parent: Window = 0
        var list: UnsafeMutablePointer<Window>?
        var count: UInt32 = 0
        guard XQueryTree(connection.display, root, &rootReturn, &parent, &list, &count) != 0, let list else { return [] }
        defer { XFree(list) }
        return Array(UnsafeBufferPointer(start: list, count: Int(count)))
    }
}
#endif
