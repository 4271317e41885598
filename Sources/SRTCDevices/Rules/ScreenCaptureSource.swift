import SRTCCore

/// What a screen share captures (seed 001, `requestShare(source:…)`): a whole display
/// (`DisplaySource`) or one application window (`WindowSource`), as `ScreenCaptureSources` lists
/// them. On macOS they come from ScreenCaptureKit; on Linux from the X server (a display is an
/// X screen, a window a top-level X window).
public protocol ScreenCaptureSource: Sendable {
    /// The platform's identifier: the display ID (macOS `CGDirectDisplayID`, the X screen
    /// number) or the window number (macOS `CGWindowID`, the X window ID).
    var id: UInt32 { get }
}

/// A rectangle in a display's pixels, origin at its top-left corner.
public struct ScreenRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The part of this rectangle inside `other` (empty when they do not meet).
    public func intersection(_ other: ScreenRect) -> ScreenRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        return ScreenRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A whole display.
public struct DisplaySource: ScreenCaptureSource, Hashable {
    public let id: UInt32
    /// Its size in pixels.
    public let width: Int
    public let height: Int
    /// The X display it belongs to (`":0"`) on Linux; nil on macOS.
    public let server: String?

    public init(id: UInt32, width: Int, height: Int, server: String? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.server = server
    }
}

/// One application window.
public struct WindowSource: ScreenCaptureSource, Hashable {
    public let id: UInt32
    /// The window's title (may be empty).
    public let title: String
    /// The owning application's name (macOS) or the window's class (X11 `WM_CLASS`), when known.
    public let applicationName: String?
    /// The owning process, when the platform says (macOS; X11 `_NET_WM_PID`).
    public let processId: Int32?
    /// Where it is on its display, in the display's pixels.
    public let frame: ScreenRect
    /// The X display it belongs to on Linux; nil on macOS.
    public let server: String?

    public init(id: UInt32, title: String, applicationName: String? = nil, processId: Int32? = nil, frame: ScreenRect,
                server: String? = nil) {
        self.id = id
        self.title = title
        self.applicationName = applicationName
        self.processId = processId
        self.frame = frame
        self.server = server
    }
}

/// The rule for cutting windows out of a whole-display share (seed 001): the display includes
/// the app's own windows by default; `excludedWindowIds` cuts those out; `excludesCurrentApplication`
/// cuts out every window of this process instead (`excludedWindowIds` is then ignored); a window
/// share cuts out nothing. Pure, so the rule is table-tested on every platform.
public enum ScreenShareExclusion {
    /// The IDs of the windows to cut out of `source`. Named IDs are kept even when `windows` (the
    /// display's shown windows now) lacks them: a hidden window may be shown later. The current
    /// application's windows are those of `windows` that `currentProcess` owns.
    public static func windowIds(for source: any ScreenCaptureSource, among windows: [WindowSource], excludedWindowIds: [UInt32],
                                 excludesCurrentApplication: Bool, currentProcess: Int32) -> [UInt32] {
        guard source is DisplaySource else { return [] }
        if excludesCurrentApplication { return windows.filter { $0.processId == currentProcess }.map(\.id) }
        var seen = Set<UInt32>()
        return excludedWindowIds.filter { seen.insert($0).inserted }
    }

    /// Paints `rects` black in 32-bit pixels (`height` rows of `stride` bytes, 4 bytes a pixel);
    /// the parts outside the picture are ignored.
    public static func blank(_ rects: [ScreenRect], in pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int) {
        let bounds = ScreenRect(x: 0, y: 0, width: width, height: height)
        for rect in rects {
            let clipped = rect.intersection(bounds)
            guard !clipped.isEmpty else { continue }
            for row in clipped.y..<(clipped.y + clipped.height) {
                (pixels + row * stride + clipped.x * 4).initializeMemory(as: UInt8.self, repeating: 0, count: clipped.width * 4)
            }
        }
    }
}
