import Foundation
import RTCNet
import SRTCProtocol

// The CDN engine: a channel that plays a pulled live stream instead of joining with a token.
// It shares the channel's state, events and reconnection with the SFU engine, and has none of
// the SFU's quality, speaker or layer events (docs/sdk-srtc.md, "The CDN engine").
extension Channel {
    /// The uid of the one remote user a CDN channel shows: the stream.
    public static let streamUid = "stream"

    // MARK: - Public API

    /// Plays a live stream on a channel created with `createChannel(engine: .cdn)`: the CDN
    /// engine's join. `didJoinSucceed` follows, then `userDidJoin` for the stream (uid `stream`)
    /// and `didAddTrack` for its video (`camera_big`) and audio (`mic`). Subscribe to a track to
    /// get its frames. When the stream breaks the channel reconnects (`channelIsReconnecting`,
    /// `didReconnect`); when it ends, `didDisconnect` reports `.channelClosed`.
    /// - Parameter url: an HLS playlist (`http://host:7880/live/<app_id>/<channel>/index.m3u8`), an
    ///   `rtmp://` URL, or anything FFmpeg reads.
    /// - Returns: the channel's info: `channel` is the stream's name (the playlist's directory).
    /// - Throws: `.wrongState` on an SFU channel or when already playing, `.connectionFailed`
    ///   when the stream cannot be opened.
    @discardableResult
    public func play(url: String) async throws(SRTCError) -> ChannelInfo {
        #if canImport(RTCAV)
        guard engineType == .cdn else { throw .wrongState("play(url:) is the CDN engine's join; this channel joins with join(url:token:)") }
        guard !context.isDestroyed else { throw .engineDestroyed }
        guard !url.isEmpty, !url.contains(where: { $0.isNewline }) else { throw .invalidURL(url) }
        try state.withLock { (s) throws(SRTCError) in
            guard !s.destroyed else { throw .engineDestroyed }
            guard s.connection == .disconnected else { throw .wrongState("play while \(s.connection)") }
            s.connection = .connecting
            s.streamURL = url
            s.reconnect = ReconnectMachine()
        }
        let source: CDNStream.Source
        do throws(SRTCError) {
            source = try await Self.openStream(url: url, timeout: 10)
        } catch {
            state.withLock { $0.connection = .disconnected }
            throw error
        }
        let info = ChannelInfo(channel: Self.streamName(url), createdAt: Int64(Date().timeIntervalSince1970 * 1000), userCount: 1)
        let started = await onQueue { [self] () -> Bool in
            let ok = state.withLock { s -> Bool in
                guard s.connection == .connecting else { return false }
                s.info = info
                s.users = []
                s.remoteTracks = [:]
                s.connection = .connected
                s.reconnect.joined(graceSeconds: 20)
                return true
            }
            guard ok else { return false }
            startTicker()
            delegates.notify { [self] in $0.channel(self, didJoinSucceed: info) }
            userJoined(UserInfo(uid: Self.streamUid, joinedAt: info.createdAt, tracks: CDNStream.trackInfos(of: source, uid: Self.streamUid)))
            startStream(source)
            return true
        }
        guard started else {
            source.interrupt.stop()
            throw .wrongState("left while starting to play")
        }
        context.logger.info("playing \(url)")
        return info
        #else
        throw .wrongState("the CDN engine needs FFmpeg (RTCAV), which this platform build does not include")
        #endif
    }

    // MARK: - Internals

    /// Subscribing to a stream's track only switches its delivery on or off.
    func setStreamSubscription(_ track: RemoteTrack, _ on: Bool) throws(SRTCError) {
        guard isJoined else { throw .notJoined }
        guard remoteTrack(trackId: track.id) === track else { throw .server(code: APIErrorCode.notFound.rawValue, message: "no track \(track.id)") }
        track.setSubscribed(on, layer: nil)
        if on { track.bind() }
    }

    /// The stream's name: the playlist's directory (`…/live/app/room1/index.m3u8` → `room1`), else the file name.
    static func streamName(_ url: String) -> String {
        let path = url.split(separator: "?").first.map(String.init) ?? url
        let parts = path.split(separator: "/").map(String.init)
        guard let last = parts.last else { return "stream" }
        if last.hasSuffix(".m3u8"), parts.count >= 2 { return parts[parts.count - 2] }
        return last.split(separator: ".").first.map(String.init) ?? last
    }

    func stopStream() {
        #if canImport(RTCAV)
        let stream = state.withLock { s -> CDNStream? in
            defer { s.cdn = nil }
            return s.cdn as? CDNStream
        }
        stream?.stop()
        #endif
    }

    /// One reconnection attempt of the CDN engine: reopen the stream and go on with the same tracks.
    func reopenStream(attempt: Int) async {
        #if canImport(RTCAV)
        let (wanted, url) = state.withLock { ($0.reconnect.wantsAttempt(attempt), $0.streamURL) }
        guard wanted, let url else { return }
        do throws(SRTCError) {
            let source = try await Self.openStream(url: url, timeout: 5)
            await onQueue { [self] in
                let actions = state.withLock { s -> [ReconnectMachine.Action] in
                    s.reconnect.wantsAttempt(attempt) ? s.reconnect.attemptSucceeded(resumed: true) : []
                }
                guard !actions.isEmpty else { source.interrupt.stop(); return }
                startStream(source)
                perform(actions, error: nil)
            }
        } catch {
            await onQueue { [self] in
                let actions = state.withLock { s -> [ReconnectMachine.Action] in
                    s.reconnect.wantsAttempt(attempt) ? s.reconnect.attemptFailed(now: Monotonic.seconds()) : []
                }
                context.logger.debug("reopening the stream failed: \(error)")
                perform(actions, error: error)
            }
        }
        #endif
    }

    #if canImport(RTCAV)
    /// Opens a stream on a thread of its own (opening blocks on the network).
    static func openStream(url: String, timeout: Double) async throws(SRTCError) -> CDNStream.Source {
        let result: Result<CDNStream.Source, SRTCError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(SRTCError) {
                    continuation.resume(returning: .success(try CDNStream.open(url: url, timeout: timeout)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "srtc-cdn-open"
            thread.start()
        }
        return try result.get()
    }

    /// Starts reading `source` into the stream user's tracks (on `queue`).
    private func startStream(_ source: CDNStream.Source) {
        let tracks = state.withLock { $0.remoteTracks }
        let stream = CDNStream(source: source, video: tracks["CDN_video"] as? RemoteVideoTrack,
                               audio: tracks["CDN_audio"] as? RemoteAudioTrack) { [weak self] outcome in
            guard let self else { return }
            queue.async { self.streamEnded(outcome) }
        }
        let old = state.withLock { s -> CDNStream? in
            defer { s.cdn = stream }
            return s.cdn as? CDNStream
        }
        old?.stop()
        stream.start()
    }

    /// The reader stopped on its own (on `queue`): a broken stream reconnects, a finished one ends the channel.
    private func streamEnded(_ outcome: CDNStream.Outcome) {
        switch outcome {
        case .lost(let why):
            let actions = state.withLock { $0.reconnect.connectionLost(now: Monotonic.seconds()) }
            if !actions.isEmpty { context.logger.info("stream lost (\(why)); reconnecting") }
            perform(actions, error: nil)
        case .ended:
            let actions = state.withLock { $0.reconnect.serverEnded(.channelClosed) }
            perform(actions, error: nil)
        }
    }
    #endif
}
