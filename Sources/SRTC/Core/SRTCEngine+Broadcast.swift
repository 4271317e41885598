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
    /// reports each start and end of a broadcast.
    /// - Throws: `.systemError` when the socket cannot be created there (a path too long, a
    ///   directory that does not exist or is not writable).
    @discardableResult
    public func startScreenRecordListening(socketPath: String, preset: ScreenPreset = .h1080p) throws(SRTCError) -> LocalCustomVideoTrack {
        if let host = broadcastHost.withLock({ $0 }) { return host.video }
        let video = createLocalCustomVideoTrack(desc: TrackDesc.screen, preset: preset, simulcast: false)
        let audio = createLocalCustomAudioTrack(desc: "screen_audio")
        let host = try BroadcastHost(path: socketPath, video: video, audio: audio, logger: context.logger) { [weak self] broadcasting in
            self?.delegates.notify { [weak self] d in if let self { d.engine(self, screenRecordDidChange: broadcasting) } }
        }
        broadcastHost.withLock { $0 = host }
        return host.video
    }

    /// Ends the user's broadcast (the documentation's `stopScreenRecord`): the extension is told
    /// to finish; channels keep the track published (sending nothing) and the host keeps
    /// listening, so the user can start again from the system's panel. To stop sending on one
    /// channel, unpublish the track there.
    public func stopScreenRecord() {
        broadcastHost.withLock { $0 }?.endBroadcast()
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
}
