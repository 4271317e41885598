import SRTCProtocol

/// The media side of one participant: its publish and subscribe transports on the SFU, and the
/// SDP negotiation that configures them. The room calls it from its actor; implementations
/// hop to the SFU's I/O thread themselves.
protocol ParticipantMedia: AnyObject, Sendable {
    /// Answers a publish-transport offer that adds `tracks` (with server ids assigned in `trackIds`, by mid).
    func publish(offer: String, tracks: [PublishTrack], trackIds: [String: String]) async throws(SignalError) -> String
    /// Stops forwarding a track this participant published; with `offer`, answers the renegotiation.
    func unpublish(trackId: String, offer: String?) async throws(SignalError) -> String?
    /// Sets a published track's mute state (a muted track forwards nothing).
    func setMuted(trackId: String, muted: Bool) async
    /// Starts forwarding `track` (published by `publisher`) to this participant at `layer`.
    func subscribe(to track: TrackInfo, of publisher: ParticipantMedia, layer: String?) async throws(SignalError)
    /// Changes the layer of a subscription.
    func setLayer(trackId: String, layer: String?) async throws(SignalError)
    /// Stops forwarding a subscription.
    func unsubscribe(trackId: String) async
    /// Applies the answer to subscribe-transport offer `revision`.
    func applySubscriberAnswer(sdp: String, revision: Int) async throws(SignalError)
    /// ICE restart of a transport; returns the publish answer when `transport` is `.publish`.
    func restartICE(_ transport: TransportRole, offer: String?) async throws(SignalError) -> String?
    /// Offers the subscribe transport with its data channels now (the client asked in `join`);
    /// `publishData`: whether the user data it sends there is forwarded (the grant's `publish_data`).
    func openDataChannels(publishData: Bool) async
    /// Closes both transports.
    func close() async
    /// Whose data channel events are this participant's (`RoomEvent.dataChannelOpened`'s owner):
    /// itself, or the part of it that holds the subscribe transport.
    var eventOwner: ObjectIdentifier { get }
}

extension ParticipantMedia {
    var eventOwner: ObjectIdentifier { ObjectIdentifier(self) }
}

/// Creates the media side of participants of one channel (one SFU router per channel).
protocol RoomMedia: AnyObject, Sendable {
    /// Creates the channel's router and posts its events to `room`'s inbox; called once, before the first participant.
    func prepare(room: ChannelRoom) async throws(SignalError)
    /// The media side of a new participant; it posts its offers to `events` (the room's inbox).
    /// `joinedAt` (Unix ms) starts the join-to-first-packet metric. `relayedBy`: the cluster node
    /// that relays the session's signaling, which may serve its subscriptions (`EdgeRelay`).
    /// `anyVideoCodec`: the server's own publisher (`ChannelGrant.serverPublisher`), whose video
    /// the `--video-codecs` list does not narrow.
    func makeParticipant(uid: String, joinedAt: Int64, events: RoomInbox, relayedBy: String?, anyVideoCodec: Bool) async -> ParticipantMedia
    /// Delivers a user data packet from the backend on the data channels of `uids` (empty:
    /// everyone), reliable or lossy; returns how many took it.
    func publishData(_ payload: [UInt8], topic: String?, reliable: Bool, to uids: Set<String>) async throws(SignalError) -> Int
    /// Releases the router.
    func close() async
}
