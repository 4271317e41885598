import SRTCProtocol

/// What a channel's next node needs to take its sessions over (docs/deploy.md, "Drain and
/// failover"): the sessions with their ids, profiles, grants, tracks and subscriptions. The node
/// that runs the channel keeps it in Redis (`ClusterRoomRecords`) after every change; a node that
/// takes the channel over (after a drain or its owner's death) adopts the sessions, which then
/// resume there with their session ids, so the others see nobody leave.
struct RoomRecord: Codable, Sendable, Equatable {
    var createdAt: Int64
    var metadata: String?
    var sessions: [SessionRecord]
}

/// One session of a `RoomRecord`.
struct SessionRecord: Codable, Sendable, Equatable {
    var uid: String
    var sessionId: String
    var grant: ChannelGrant
    var nickname: String?
    var custom: String?
    var joinedAt: Int64
    /// Token expiry (Unix seconds): the adopted session ends then, as it would have on its node.
    var expiresAt: Int64
    /// The tracks it publishes, with their ids (kept, so subscribers see the same tracks).
    var tracks: [TrackInfo]
    /// Its subscriptions, with the requested layer.
    var subscriptions: [SubscribeRequest]
    /// It asked for data channels (`join`'s `data_channel`): the new node offers them again on
    /// the resume that says `moved`. Absent in records of nodes that did not keep it.
    var dataChannel: Bool?
}

/// Where a channel's record is kept between nodes; `nil` records delete.
protocol RoomRecordStore: Sendable {
    /// Writes (or with `nil`, deletes) the record, in call order, without waiting.
    func save(_ key: ChannelKey, _ record: RoomRecord?)
    /// The record last saved for `key`, once every earlier `save` of this node is applied.
    func load(_ key: ChannelKey) async -> RoomRecord?
}
