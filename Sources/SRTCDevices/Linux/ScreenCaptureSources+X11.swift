#if os(Linux)
import SRTCCore
import Glibc

/// The displays and windows a screen share can capture (seed 001's `ScreenCaptureSources`): on
/// Linux, the screens and the shown application windows of an X display.
public enum ScreenCaptureSources {
    /// The screens of X display `server` (`":0"`; nil uses $DISPLAY).
    /// - Throws: `.systemError` when the display cannot be opened.
    public static func availableDisplays(server: String? = nil) async throws(SRTCError) -> [DisplaySource] {
        try await DeviceThread.perform { () throws(SRTCError) in
            X11WindowList.displays(try X11Connection(server), server: server)
        }
    }

    /// The shown application windows of X display `server`'s default screen, bottom to top.
    /// - Throws: `.systemError` when the display cannot be opened.
    public static func availableWindows(server: String? = nil) async throws(SRTCError) -> [WindowSource] {
        try await DeviceThread.perform { () throws(SRTCError) in
            X11WindowList.windows(try X11Connection(server), server: server)
        }
    }
}

extension LocalScreenTrack {
    /// Starts capturing `source` (a running capture is replaced): a `DisplaySource` is the whole
    /// X screen, with the excluded windows painted black (X11 draws every window into the
    /// screen's pixels); a `WindowSource` is that window alone, following its size, and no frame
    /// while it is not shown. `excludesCurrentApplication` cuts out the windows of this process
    /// shown when the capture starts (the SDK's video windows say they are this process's);
    /// `excludedWindowIds` is then ignored.
    /// - Throws: `.systemError` when the display cannot be opened, `.notFound` when the window or
    ///   screen does not exist.
    public func startCapture(source: any ScreenCaptureSource, excludedWindowIds: [UInt32] = [],
                             excludesCurrentApplication: Bool = false) async throws(SRTCError) {
        let target: X11ScreenCapture.Target
        let server: String?
        switch source {
        case let display as DisplaySource:
            server = display.server
            let shown = excludesCurrentApplication ? try await ScreenCaptureSources.availableWindows(server: server) : []
            let ids = ScreenShareExclusion.windowIds(for: display, among: shown, excludedWindowIds: excludedWindowIds,
                                                     excludesCurrentApplication: excludesCurrentApplication, currentProcess: getpid())
            target = .screen(Int32(display.id), excluding: ids)
        case let window as WindowSource:
            server = window.server
            target = .window(window.id)
        default:
            throw .notFound("a screen capture source of type \(type(of: source))")
        }
        try await startCapture(display: server, target: target)
    }
}
#endif
