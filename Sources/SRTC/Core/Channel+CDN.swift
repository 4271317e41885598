import Foundation
import RTCNet
import SRTCProtocol

// The CDN engine: a channel that plays a pulled live stream instead of joining with a token.
// It shares the channel's state, events and reconnection with the SFU engine, and has none of
// the SFU's quality, speaker or layer events (docs/sdk-srtc.md, "The CDN engine"). The stream
// itself is read by a `LiveStreamPlayer` of the module `SRTCPlayer`, whose `play(url:)` calls
// `play(url:player:)` here.
extension Channel {
    /// The uid of the one remote user a CDN channel shows: the stream.
    public static let streamUid = "stream"

    // MARK: - Role module API

    /// The CDN engine's join with `player` reading the stream (`SRTCPlayer`'s `play(url:)`
    /// documents the events and errors).
    @discardableResult
    package func play(url: String, player: any LiveStreamPlayer) async throws(SRTCError) -> ChannelInfo {
        guard engineType == .cdn else { throw .wrongState("play(url:) is the CDN engine's join; this channel joins with join(url:token:)") }
        guard !context.isDestroyed else { throw .engineDestroyed }
        guard !url.isEmpty, !url.contains(where: { $0.isNewline }) else { throw .invalidURL(url) }
        try state.sync { (s) throws(SRTCError) in
            try s.machine.begin(nil)
            s.streamURL = url
            s.cdn = LiveStreamPlayback(player: player)
        }
        let source: any LiveStream
        do throws(SRTCError) {
            source = try await Self.openStream(url: url, timeout: 10, player: player)
        } catch {
            await onQueue { [self] in step(.joinFailed) }
            throw error
        }
        let info = ChannelInfo(channel: Self.streamName(url), createdAt: Int64(Date().timeIntervalSince1970 * 1000), userCount: 1)
        let stream = UserInfo(uid: Self.streamUid, joinedAt: info.createdAt, tracks: source.trackInfos(uid: Self.streamUid))
        // The machine starts the stream (`startStream`) once the stream user's tracks exist, or
        // stops it (`discardStream`) when the channel left meanwhile.
        let started = await onQueue { [self] in
            state.sync { $0.openedStream = source }
            return step(.streamOpened(info, stream: stream)).contains(.startStream)
        }
        guard started else { throw .wrongState("left while starting to play") }
        context.logger.info("playing \(url)")
        return info
    }

    // MARK: - Internals

    /// Subscribing to a stream's track only switches its delivery on or off.
    func setStreamSubscription(_ track: RemoteTrack, _ on: Bool) async throws(SRTCError) {
        guard isJoined else { throw .notJoined }
        guard remoteTrack(trackId: track.id) === track else { throw .server(code: APIErrorCode.notFound.rawValue, message: "no track \(track.id)") }
        await answered(on ? .subscribed(trackId: track.id, layer: nil) : .unsubscribed(trackId: track.id))
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
        let stream = state.sync { s -> (any LiveStream)? in
            defer { s.cdn = nil }
            return s.cdn?.stream
        }
        stream?.stop()
    }

    /// One reconnection attempt of the CDN engine: reopen the stream and go on with the same tracks.
    func reopenStream(attempt: Int) async {
        let (url, player) = state.sync { ($0.streamURL, $0.cdn?.player) }
        guard let url, let player else { return }
        do throws(SRTCError) {
            let source = try await Self.openStream(url: url, timeout: 5, player: player)
            await onQueue { [self] in
                state.sync { $0.openedStream = source }
                step(.streamReopened(attempt: attempt))
            }
        } catch {
            context.logger.debug("reopening the stream failed: \(error)")
            await onQueue { [self] in step(.attemptFailed(attempt: attempt, link: nil, error: error)) }
        }
    }

    /// Opens a stream on a thread of its own (opening blocks on the network).
    static func openStream(url: String, timeout: Double, player: any LiveStreamPlayer) async throws(SRTCError) -> any LiveStream {
        let result: Result<any LiveStream, SRTCError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(SRTCError) {
                    continuation.resume(returning: .success(try player.open(url: url, timeout: timeout)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "srtc-cdn-open"
            thread.start()
        }
        return try result.get()
    }

    /// Starts reading `stream` into the stream user's tracks (on `queue`).
    func startStream(_ stream: any LiveStream) {
        let (tracks, old, playing) = state.sync { s -> ([String: RemoteTrack], (any LiveStream)?, Bool) in
            guard var playback = s.cdn else { return (s.remoteTracks, nil, false) }
            let old = playback.stream
            playback.stream = stream
            s.cdn = playback
            return (s.remoteTracks, old, true)
        }
        old?.stop()
        guard playing else { return stream.stop() }  // left meanwhile
        stream.start(video: tracks["CDN_video"] as? RemoteVideoTrack, audio: tracks["CDN_audio"] as? RemoteAudioTrack) { [weak self] outcome in
            guard let self else { return }
            queue.async { self.streamEnded(outcome) }
        }
    }

    /// The reader stopped on its own (on `queue`): a broken stream reconnects, a finished one ends the channel.
    private func streamEnded(_ outcome: LiveStreamOutcome) {
        switch outcome {
        case .lost(let why):
            if step(.streamLost).contains(.notify(.reconnecting)) { context.logger.info("stream lost (\(why)); reconnecting") }
        case .ended:
            step(.streamFinished)
        }
    }
}
