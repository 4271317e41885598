import SRTC

/// Full-screen sharing from a broadcast extension (iOS: a ReplayKit Broadcast Upload Extension
/// with `SRTCBroadcastExtension`), over SRTC's broadcast host (`startScreenRecordListening`).
/// The listener waits for the user to start the broadcast from the system UI; only then does
/// the app publish it to the meeting. Platform-neutral: on Linux the extension's side is any
/// process using `BroadcastSender` on the group's socket (`srtc broadcast --app-group`).
///
/// ```swift
/// try await meeting.prepareBroadcastShare(appGroup: "group.your.app")   // after entering
/// // shareBroadcastDidStart: the user started broadcasting
/// try await meeting.publishBroadcastShare()
/// await meeting.stopShare()                 // ends the broadcast; still listening
/// await meeting.stopBroadcastListening()    // exitRoom() does it too
/// ```
extension SMeetingEngine {
    /// Listens for the broadcast extension of `appGroup` without telling the meeting or
    /// publishing anything. Idempotent while listening or sharing.
    /// - Throws: `.notInMeeting`; `.deviceError` when the listener cannot be set up (an App
    ///   Group the app is not in, a name that gives no socket path, a socket that cannot be
    ///   created).
    public func prepareBroadcastShare(appGroup: String, preset: ScreenPreset = .h1080p) async throws {
        _ = try inMeeting()
        if broadcastTrack != nil { return }
        guard let path = SRTCEngine.broadcastSocketPath(appGroup: appGroup) else {
            throw SMeetingError.deviceError("no broadcast socket for the App Group '\(appGroup)'")
        }
        let track: LocalCustomVideoTrack
        do {
            track = try srtc.startScreenRecordListening(socketPath: path, preset: preset)
        } catch {
            throw SMeetingError.deviceError("broadcast listener: \(error)")
        }
        let bridge = BroadcastBridge(engine: self)
        track.delegates.add(delegate: bridge)
        state.withLock {
            $0.broadcastTrack = track
            $0.broadcastBridge = bridge
        }
    }

    /// Publishes the prepared broadcast to the meeting under the sharing rules of
    /// `requestShare(shareType: .screen)` (call it on `shareBroadcastDidStart`). Idempotent once
    /// published; a refusal rolls the sharing state back and listening goes on.
    /// - Throws: `.internalError` without `prepareBroadcastShare`, or when another share of mine
    ///   runs; `.unauthorized`, `.apiError` as `requestShare`.
    public func publishBroadcastShare(view: NativeVideoView? = nil, byAdmin: Bool = false, adminUid: String? = nil) async throws {
        guard let track = broadcastTrack else { throw SMeetingError.internalError("prepareBroadcastShare has not been called") }
        if screenTrack === track { return }
        try await share(.screen, view: view, byAdmin: byAdmin, adminUid: adminUid) { track }
    }

    /// The one-step version: listens for the extension of `broadcastAppGroup` and announces and
    /// publishes the share at once, before the user has started broadcasting (the share shows no
    /// video until then; the meeting flow is `prepareBroadcastShare` + `publishBroadcastShare`).
    /// - Throws: as `prepareBroadcastShare` and `publishBroadcastShare`.
    public func requestShare(broadcastAppGroup: String, preset: ScreenPreset = .h1080p, view: NativeVideoView? = nil,
                             byAdmin: Bool = false, adminUid: String? = nil) async throws {
        try await prepareBroadcastShare(appGroup: broadcastAppGroup, preset: preset)
        try await publishBroadcastShare(view: view, byAdmin: byAdmin, adminUid: adminUid)
    }

    /// Stops listening; while sharing the broadcast it is `stopShare()` first. Listening does not
    /// start again by itself. Never throws.
    public func stopBroadcastListening() async {
        guard let track = broadcastTrack else { return }
        if screenTrack === track { await stopShare() }
        dropBroadcast()
    }

    /// Whether the extension is producing frames now: false after `prepareBroadcastShare` until
    /// the user starts the broadcast, and always without one.
    public var isShareBroadcastActive: Bool { broadcastTrack != nil && srtc.isScreenRecording }

    // MARK: - Internals

    /// The prepared broadcast's track, while listening.
    var broadcastTrack: LocalCustomVideoTrack? { state.withLock { $0.broadcastTrack } }

    /// Stops listening and forgets the broadcast (leaving the meeting).
    func dropBroadcast() {
        let (track, bridge) = state.withLock { s -> (LocalCustomVideoTrack?, BroadcastBridge?) in
            defer { (s.broadcastTrack, s.broadcastBridge) = (nil, nil) }
            return (s.broadcastTrack, s.broadcastBridge)
        }
        guard let track else { return }
        if let bridge { track.delegates.remove(delegate: bridge) }
        srtc.stopScreenRecordListening()
    }

    /// The user ended the broadcast (system pill) while it was shared: the share ends with it,
    /// so the meeting is not left with a sharing flag and no video.
    func broadcastDidFinish(_ track: Track, reason: String) {
        notify { d, engine in d.shareBroadcastDidFinish(engine, reason: reason) }
        guard screenTrack === track else { return }
        Task { await self.stopShare() }
    }
}

/// Forwards the broadcast track's events to the meeting's delegates.
// @unchecked Sendable: its one stored property, a weak reference to the (Sendable) engine, is set in init and never reassigned.
final class BroadcastBridge: TrackDelegate, @unchecked Sendable {
    private weak var engine: SMeetingEngine?

    init(engine: SMeetingEngine) {
        self.engine = engine
    }

    func screenBroadcastDidStart(_ track: Track) {
        engine?.notify { d, engine in d.shareBroadcastDidStart(engine) }
    }

    func screenBroadcastDidFinish(_ track: Track, reason: String) {
        engine?.broadcastDidFinish(track, reason: reason)
    }
}
