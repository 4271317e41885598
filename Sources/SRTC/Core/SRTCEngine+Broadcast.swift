import Foundation

/// Screen broadcast from another process (the documentation's ReplayKit screen sharing): the host
/// app listens, the broadcast extension (`BroadcastSender`, on iOS `SRTCBroadcastExtension`)
/// connects and hands over the screen's frames and app audio. One capture for the whole process:
/// each channel that should send it publishes `screenRecordTrack` (and `screenRecordAudioTrack`).
///
/// ```swift
/// // host app (iOS: a path in the App Group's container, `SRTCEngine.broadcastSocketPath(appGroup:)`)
/// let screen = try srtc.startScreenRecordListening(socketPath: path)
/// try await channel.publishLocalTrack(screen)
/// srtc.stopScreenRecord()                 // ends the user's broadcast; still listening
/// ```
extension SRTCEngine {
    /// Listens for a broadcast extension on the Unix socket `socketPath` (replacing a socket file
    /// left there) and returns the screen track its frames will feed. Idempotent: listening
    /// already, the same track is returned. `SRTCEngineDelegate.engine(_:screenRecordDidChange:)`
    /// and the track's `screenBroadcastDidStart` / `screenBroadcastDidFinish(_:reason:)` report
    /// each start and end of a broadcast.
    /// - Throws: `.systemError` when the socket cannot be created there (a path too long, a
    ///   directory that does not exist or is not writable).
    @discardableResult
    public func startScreenRecordListening(socketPath: String, preset: ScreenPreset = .h1080p) throws(SRTCError) -> LocalCustomVideoTrack {
        if let host = broadcastHost.withLock({ $0 }) { return host.video }
        let video = createLocalCustomVideoTrack(desc: TrackDesc.screen, preset: preset, simulcast: false)
        let audio = createLocalCustomAudioTrack(desc: "screen_audio")
        let host = try BroadcastHost(path: socketPath, video: video, audio: audio, logger: context.logger) { [weak self, weak video] change in
            let broadcasting = change == .started
            self?.delegates.notify { [weak self] d in if let self { d.engine(self, screenRecordDidChange: broadcasting) } }
            guard let video else { return }
            switch change {
            case .started: video.delegates.notify { $0.screenBroadcastDidStart(video) }
            case .ended(let reason): video.delegates.notify { $0.screenBroadcastDidFinish(video, reason: reason) }
            }
        }
        broadcastHost.withLock { $0 = host }
        return host.video
    }

    /// Listens where the configuration's App Group puts the socket (`Configuration.appGroup`,
    /// `SRTCEngine.broadcastSocketPath(appGroup:)`): the host-app side of
    /// `sharedEngine(configuration:appGroup:delegate:)`.
    /// - Throws: `.wrongState` when the configuration has no App Group, `.notFound` when the group
    ///   gives no path (the app is not in it; a name the platform cannot use), else as
    ///   `startScreenRecordListening(socketPath:preset:)`.
    @discardableResult
    public func startScreenRecordListening(preset: ScreenPreset = .h1080p) throws(SRTCError) -> LocalCustomVideoTrack {
        guard let appGroup = configuration.appGroup else { throw .wrongState("no appGroup in the engine's configuration") }
        guard let path = Self.broadcastSocketPath(appGroup: appGroup) else { throw .notFound("no socket path for App Group \(appGroup)") }
        return try startScreenRecordListening(socketPath: path, preset: preset)
    }

    /// Ends the user's broadcast (seed 000's `stopScreenRecord`): the extension is told to finish
    /// and every channel of this engine that publishes the broadcast's tracks (`screen`,
    /// `screen_audio`) unpublishes them, in the background; the host keeps listening, so the user
    /// can start again from the system's panel (then publish the track again). To stop sending on
    /// one channel only, unpublish the track there.
    public func stopScreenRecord() {
        guard let host = broadcastHost.withLock({ $0 }) else { return }
        host.endBroadcast()
        let broadcast: [LocalTrack] = [host.video, host.audio]
        for channel in getChannels() {
            let published = channel.localTracks.filter { track in broadcast.contains { $0 === track } }
            guard !published.isEmpty else { continue }
            Task { for track in published { try? await channel.unpublishLocalTrack(track) } }
        }
    }

    /// Ends the broadcast and stops listening (`destroy()` does too).
    public func stopScreenRecordListening() {
        broadcastHost.withLock { h in defer { h = nil }; return h }?.close()
    }

    /// Whether an extension is broadcasting now.
    public var isScreenRecording: Bool { broadcastHost.withLock { $0 }?.isBroadcasting ?? false }

    /// The track the broadcast's frames feed (`screen`), while listening.
    public var screenRecordTrack: LocalCustomVideoTrack? { broadcastHost.withLock { $0 }?.video }

    /// The track the broadcast's app audio feeds (`screen_audio`), while listening.
    public var screenRecordAudioTrack: LocalCustomAudioTrack? { broadcastHost.withLock { $0 }?.audio }

    /// Where the host app of `appGroup` listens for its broadcast extension; both sides compute
    /// it from the group. Apple platforms: `srtc-broadcast.sock` in the App Group's shared
    /// container (nil when the app is not in that group). Elsewhere, without App Groups: a socket
    /// named after the group in `$XDG_RUNTIME_DIR` (else the temporary directory), reachable by
    /// the same user's processes (`srtc broadcast --app-group`); nil for an empty name or one with
    /// characters other than letters, digits, `.`, `_` and `-`.
    public static func broadcastSocketPath(appGroup: String) -> String? {
        #if canImport(Darwin)
        return FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)?.appendingPathComponent("srtc-broadcast.sock").path
        #else
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !appGroup.isEmpty, appGroup.count <= 64, appGroup.allSatisfy(allowed.contains) else { return nil }
        let directory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        return (directory as NSString).appendingPathComponent("srtc-broadcast-\(appGroup).sock")
        #endif
    }
}
