import Foundation
import SRTCProtocol

// Requests that need only signaling: messages, profile, subscriptions, mute.
extension Channel {
    // MARK: - Messages and profile

    /// Sends a custom message (text or JSON text, at most 16 KiB) to `uids`, or to everyone else
    /// when `uids` is nil or empty. Recipients get `channel(_:didReceiveCustomMessage:)`.
    /// Needs the token's `publish_data` permission.
    public func sendCustomMessage(_ data: String, to uids: [String]? = nil) async throws(SRTCError) {
        try await liveSignal().request(.sendMessage(SendMessageRequest(to: uids, data: data)))
    }

    /// Changes my nickname and/or custom data (nil leaves a field as it is). I get
    /// `channel(_:meDidUpdate:)`, the others `channel(_:userDidUpdate:)`.
    public func updateProfile(nickname: String? = nil, custom: String? = nil) async throws(SRTCError) {
        try await liveSignal().request(.updateProfile(ProfileUpdate(nickname: nickname, custom: custom)))
    }

    // MARK: - Subscriptions

    /// Subscribes to a remote track: the server starts forwarding it over this channel's
    /// subscribe transport. Video frames then reach the track's renderers, audio its audio renderers.
    /// - Parameters:
    ///   - track: a track from `didAddTrack` / `remoteTracks`.
    ///   - layer: for a simulcast camera track, `.cameraSmall` or `.cameraBig`; nil picks the best.
    public func subscribe(_ track: RemoteTrack, layer: VideoLayer? = nil) async throws(SRTCError) {
        if engineType == .cdn { return try await setStreamSubscription(track, true) }
        let signal = try liveSignal()
        prepareMediaForSubscription(track)
        try await signal.request(.subscribe(SubscribeRequest(trackId: track.id, layer: layer?.rawValue)))
        await answered(.subscribed(trackId: track.id, layer: layer))
    }

    /// Subscribes by track id.
    public func subscribe(trackId: String, layer: VideoLayer? = nil) async throws(SRTCError) {
        guard let track = remoteTrack(trackId: trackId) else { throw .server(code: APIErrorCode.notFound.rawValue, message: "no track \(trackId)") }
        try await subscribe(track, layer: layer)
    }

    /// Stops receiving a remote track.
    public func unsubscribe(_ track: RemoteTrack) async throws(SRTCError) {
        if engineType == .cdn { return try await setStreamSubscription(track, false) }
        let signal = try liveSignal()
        try await signal.request(.unsubscribe(TrackRef(trackId: track.id)))
        await answered(.unsubscribed(trackId: track.id))
    }

    /// Switches the simulcast layer of a subscribed video track without renegotiation;
    /// `channel(_:didSwitchLayer:)` follows once the switch took effect on a key frame.
    public func switchLayer(_ track: RemoteVideoTrack, to layer: VideoLayer) async throws(SRTCError) {
        let signal = try liveSignal()
        try state.sync { (s) throws(SRTCError) in try s.machine.tracks.checkLayerSwitch(track.id) }
        try await signal.request(.setLayer(SubscribeRequest(trackId: track.id, layer: layer.rawValue)))
        await answered(.layerRequested(trackId: track.id, layer: layer))
    }

    // MARK: - Mute

    /// Tells the server a local track's mute state (called by `LocalTrack.mute()` / `unmute()`).
    func sendMute(trackId: String, muted: Bool) async {
        guard let signal = try? liveSignal() else { return }
        do {
            try await signal.request(.mute(MuteRequest(trackId: trackId, muted: muted)))
        } catch {
            context.logger.warning("mute \(trackId) failed: \(error)")
        }
    }
}
