import SRTCProtocol

/// Channel events on a cluster node: a channel that ends here gives up its owner entry (so the
/// next join places it afresh on the least-loaded node), then every event goes on to `next`
/// (the webhook dispatcher, or nothing).
struct ClusterChannelEvents: ChannelEventSink {
    let directory: ChannelDirectory
    let next: any ChannelEventSink

    func channelCreated(_ key: ChannelKey) { next.channelCreated(key) }
    func channelClosed(_ key: ChannelKey) {
        let directory = self.directory
        Task { await directory.release(key) }
        next.channelClosed(key)
    }
    func userJoined(_ key: ChannelKey, uid: String) { next.userJoined(key, uid: uid) }
    func userLeft(_ key: ChannelKey, uid: String, reason: DisconnectReason) { next.userLeft(key, uid: uid, reason: reason) }
    func trackPublished(_ key: ChannelKey, uid: String, track: TrackInfo) { next.trackPublished(key, uid: uid, track: track) }
    func trackUnpublished(_ key: ChannelKey, uid: String, track: TrackInfo) { next.trackUnpublished(key, uid: uid, track: track) }
}
