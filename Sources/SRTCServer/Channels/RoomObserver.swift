import SRTCProtocol

/// What happens in rooms that the rest of the server cares about (webhooks, metrics, cleanup).
protocol RoomObserver: Sendable {
    func userJoined(room: ChannelKey, uid: String)
    func userLeft(room: ChannelKey, uid: String, reason: DisconnectReason)
    func sessionResumed(room: ChannelKey, uid: String)
    func trackPublished(room: ChannelKey, uid: String, track: TrackInfo)
    func trackUnpublished(room: ChannelKey, uid: String, track: TrackInfo)
    func roomBecameEmpty(_ room: ChannelKey)
    /// A session taken over from another node (`adopt`): counted, not announced.
    func sessionAdopted(room: ChannelKey, uid: String)
    /// A session handed to another node (`handOff`): no longer counted here, not announced.
    func sessionHandedOff(room: ChannelKey, uid: String)
    /// On a cluster, the room looked for its previous node's record before any join:
    /// `takenOver` when it continues a channel another node ran (not a new channel).
    func channelOpened(room: ChannelKey, takenOver: Bool)
}

extension RoomObserver {
    func sessionAdopted(room: ChannelKey, uid: String) {}
    func sessionHandedOff(room: ChannelKey, uid: String) {}
    func channelOpened(room: ChannelKey, takenOver: Bool) {}
}
