import SRTCProtocol

/// One user's session in a channel. Owned and mutated only by its `ChannelRoom` actor.
final class Participant {
    let uid: String
    /// Changes when the same uid joins again (the older session is replaced, not resumed).
    let sessionId: String
    var grant: ChannelGrant
    /// A hidden participant (an egress worker): in no user list or count, joins and leaves unannounced.
    let hidden: Bool
    var nickname: String?
    var custom: String?
    let joinedAt: Int64
    /// The live signaling connection; `nil` while the session waits in its grace period.
    var connection: SignalConnection?
    /// When the connection dropped (Unix ms), while in the grace period.
    var disconnectedAt: Int64?
    /// Ends the session when the grace period passes without a resume.
    var graceTimer: RoomTimer?
    /// Ends the session when the token expires.
    var expiryTimer: RoomTimer?
    /// The token's `exp` (Unix seconds).
    var expiresAt: Int64 = .max
    /// Taken over from another node (`ChannelRoom+Handoff`) and not resumed yet: the resume
    /// tells the client its transports stayed behind (`moved`).
    var moved = false
    /// Tracks taken over from another node whose media the publisher has not sent here yet.
    var unboundTrackIds: Set<String> = []
    /// Subscriptions taken over from another node, made again once both sides have media here.
    var pendingSubscriptions: [String: String?] = [:]
    /// Track ids I publish, in publish order.
    var publishedTrackIds: [String] = []
    /// Remote track id → requested layer desc (nil = best).
    var subscriptions: [String: String?] = [:]
    /// The media side (publish and subscribe transports), created on first use.
    var media: ParticipantMedia?
    /// The subscribe transport's reliable data channel, once open (docs/protocol.md, "Data channels").
    var dataChannel: SignalConnection?
    /// The client asked for data channels; kept across a move, whose new transport offers them again.
    var wantsDataChannel = false
    /// The video codecs (and H.264 profiles) the client said it decodes (`JoinRequest.videoCodecs`); nil: all.
    var videoCodecs: DecodedVideoCodecs?

    init(uid: String, sessionId: String, grant: ChannelGrant, nickname: String?, custom: String?, joinedAt: Int64, connection: SignalConnection?) {
        self.uid = uid
        self.sessionId = sessionId
        self.grant = grant
        self.hidden = grant.hidden
        self.nickname = nickname
        self.custom = custom
        self.joinedAt = joinedAt
        self.connection = connection
    }

    /// Sends to the live connection, if any (events during the grace period are dropped; the
    /// resume response carries the current state instead). Quality, speaker and layer events go
    /// on the data channel when it is open.
    func send(_ event: ServerEvent) {
        if event.travelsOnDataChannel, let dataChannel {
            dataChannel.send(event: event)
        } else {
            connection?.send(event: event)
        }
    }

    func cancelTimers() {
        graceTimer?.cancel()
        graceTimer = nil
        expiryTimer?.cancel()
        expiryTimer = nil
    }
}
