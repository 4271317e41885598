#if os(Linux)
import SMeetingProtocol
import SRTC
import Synchronization

/// A member's video in a window of its own: the Linux counterpart of the SwiftUI view of the same
/// name. `appear()` binds it like `startPlayRemoteVideo(view:uid:trackDesc:)` (subscribing when
/// no other view of that track did), `disappear()` unbinds it (unsubscribing once no view nor
/// explicit subscription is left): views of one member share one subscription, counted by the
/// meeting. The window is an `SRTCVideoRenderer` on an X11 display.
///
/// ```swift
/// let view = try SMeetingRemoteVideoView(meeting: meeting, uid: "alice", width: 640, height: 360)
/// try await view.appear()
/// …
/// await view.close()
/// ```
public final class SMeetingRemoteVideoView: Sendable {
    /// The member shown.
    public let uid: String
    /// Which of the member's videos.
    public let trackDesc: TrackDesc
    /// The window the frames are drawn in (its size, frames drawn, whether it was closed).
    public let window: SRTCVideoRenderer
    private let meeting: SMeetingEngine
    private let bound = Mutex(false)

    /// Opens the window (showing nothing until `appear()`).
    /// - Parameters:
    ///   - display: the X display (`:0`); nil uses $DISPLAY.
    ///   - x, y, width, height: the window's place and size; frames are scaled to fit.
    /// - Throws: `SRTCError.systemError` when the display cannot be opened.
    public init(meeting: SMeetingEngine, uid: String, trackDesc: TrackDesc = .cameraBig, display: String? = nil,
                x: Int = 0, y: Int = 0, width: Int = 640, height: Int = 360) throws {
        self.meeting = meeting
        self.uid = uid
        self.trackDesc = trackDesc
        window = try SRTCVideoRenderer(display: display, x: x, y: y, width: width, height: height, title: "\(uid) \(trackDesc.rawValue)")
    }

    /// Shows the member's video (once; again after `disappear()`).
    /// - Throws: as `startPlayRemoteVideo(view:uid:trackDesc:)`: `.notInMeeting`, `.internalError`
    ///   when the member has no such track.
    @discardableResult
    public func appear() async throws -> RemoteVideoTrack? {
        guard bound.withLock({ b in defer { b = true }; return !b }) else { return nil }
        do {
            return try await meeting.startPlayRemoteVideo(view: window, uid: uid, trackDesc: trackDesc)
        } catch {
            bound.withLock { $0 = false }
            throw error
        }
    }

    /// Stops showing the video (the window keeps the last frame). Never throws.
    public func disappear() async {
        guard bound.withLock({ b in defer { b = false }; return b }) else { return }
        try? await meeting.stopPlayRemoteVideo(view: window, uid: uid, trackDesc: trackDesc)
    }

    /// `disappear()`, then closes the window.
    public func close() async {
        await disappear()
        window.close()
    }
}
#endif
