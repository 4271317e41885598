import Synchronization

/// Which way a camera faces (the documentation's `RTCEngineCameraDirection`). V4L2 does not say
/// where a camera faces: Linux cameras (webcams, which face the user) are `.front`.
public enum CameraDirection: String, Sendable {
    case front
    case back

    /// The other side (what a front ↔ back switch opens).
    public var opposite: CameraDirection { self == .front ? .back : .front }
}

/// The engine's local preview (the documentation's `startLocalPreview:view:`, `updateLocalView:`,
/// `setLocalPreviewMirror:`, `currentCameraDirection`), apart from opening cameras: which camera
/// track is previewed, in which view, and the mirror rule. Platform-neutral, so the rules are
/// tested on Linux:
/// - the front camera is mirrored as the preference says (on by default), the back camera never;
/// - the rule follows the camera: after a switch, or in a new view, it is applied again;
/// - only the view is mirrored (`MirrorableRenderer.mirrored`), never the frames the track sends;
/// - a view the preview lets go of is shown unmirrored again.
package final class LocalPreview: Sendable {
    // @unchecked Sendable: a State lives only inside `LocalPreview.state` (Mutex); its weak view is taken out only to attach or detach it, on the app's calling thread.
    struct State: @unchecked Sendable {
        var track: LocalVideoTrack?
        /// The engine opened the camera (stopping the preview closes it), rather than the app
        /// handing its own track over.
        var ownsCapture = false
        weak var view: VideoRenderer?
        var direction: CameraDirection?
        var mirrorFront = true
    }

    private let state = Mutex(State())

    /// Whether a view of a camera facing `direction` is mirrored under `preference`.
    static func mirrors(_ direction: CameraDirection?, preference: Bool) -> Bool {
        direction == .front && preference
    }

    /// The previewed track, whether the engine owns its capture, and the camera's direction.
    package var current: (track: LocalVideoTrack, ownsCapture: Bool, direction: CameraDirection)? {
        state.withLock { s in s.track.flatMap { t in s.direction.map { (t, s.ownsCapture, $0) } } }
    }

    var direction: CameraDirection? { state.withLock { $0.direction } }

    var mirrorFront: Bool { state.withLock { $0.mirrorFront } }

    /// Starts previewing `track` (facing `direction`) in `view`, replacing a previous preview.
    /// - Returns: the previous preview's track when the engine owned its capture (to be closed).
    package func start(track: LocalVideoTrack, direction: CameraDirection, view: VideoRenderer?, ownsCapture: Bool) -> LocalVideoTrack? {
        let old = replace(track: track, direction: direction, view: view, ownsCapture: ownsCapture)
        detach(old.view, from: old.track)
        attach(view, to: track)
        return old.ownsCapture && old.track !== track ? old.track : nil
    }

    /// Shows the preview in `view` instead (nil: in none).
    /// - Throws: `.wrongState` when there is no preview.
    func update(view: VideoRenderer?) throws(SRTCError) {
        let (track, old) = try state.withLock { s throws(SRTCError) in
            guard let track = s.track else { throw .wrongState("no local preview") }
            defer { s.view = view }
            return (track, s.view)
        }
        if old !== view {
            detach(old, from: track)
            attach(view, to: track)
        }
    }

    /// The camera now faces `direction` (after a switch); the mirror rule is applied again.
    package func cameraSwitched(to direction: CameraDirection) {
        state.withLock { $0.direction = direction }
        applyMirror()
    }

    /// Sets the front camera's mirror preference, kept across previews.
    func setMirror(_ mirror: Bool) {
        state.withLock { $0.mirrorFront = mirror }
        applyMirror()
    }

    /// Ends the preview.
    /// - Returns: its track when the engine owned the capture (to be closed).
    func stop() -> LocalVideoTrack? {
        let old = replace(track: nil, direction: nil, view: nil, ownsCapture: false)
        detach(old.view, from: old.track)
        return old.ownsCapture ? old.track : nil
    }

    // MARK: - Internals

    /// Puts a new preview (or none) in place; returns the previous one.
    private func replace(track: LocalVideoTrack?, direction: CameraDirection?, view: VideoRenderer?, ownsCapture: Bool)
        -> (track: LocalVideoTrack?, view: VideoRenderer?, ownsCapture: Bool) {
        state.withLock { s in
            defer {
                s.track = track
                s.ownsCapture = ownsCapture
                s.view = view
                s.direction = direction
            }
            return (s.track, s.view, s.ownsCapture)
        }
    }

    private func attach(_ view: VideoRenderer?, to track: LocalVideoTrack) {
        guard let view else { return }
        applyMirror()
        track.add(videoRenderer: view)
    }

    private func detach(_ view: VideoRenderer?, from track: LocalVideoTrack?) {
        guard let view else { return }
        track?.remove(videoRenderer: view)
        (view as? MirrorableRenderer)?.mirrored = false
    }

    /// Sets the view's `mirrored` from the camera's direction and the preference.
    private func applyMirror() {
        let (view, mirrored) = state.withLock { s in (s.view, Self.mirrors(s.direction, preference: s.mirrorFront)) }
        (view as? MirrorableRenderer)?.mirrored = mirrored
    }
}
