import SRTCProtocol

/// One call of a channel's node on a relaying node (`POST /server/v1/cluster/edge`, docs/deploy.md
/// "Channels larger than a node"). The channel's node decides everything; the relaying node
/// performs it on its own SFU and answers with what its media produced (`EdgeAnswer`).
struct EdgeCall: Codable, Sendable, Equatable {
    enum Op: String, Codable, Sendable {
        /// Make the channel's relay router and the uplink transport to the channel's node (`uplink`).
        case open
        /// Receive `track` on the uplink as SSRC `ssrc`.
        case track
        /// Stop receiving `trackId`.
        case untrack
        /// Session `session` (of `uid`) subscribes to `track` at `layer`.
        case subscribe
        /// Session `session` stops its subscription to `trackId`.
        case unsubscribe
        /// Session `session`'s client answered offer `revision` with `sdp`.
        case answer
        /// Session `session` restarts ICE on its subscribe transport.
        case restart
        /// Session `session` gets data channels on its subscribe transport (it asked in `join`);
        /// it may publish user data on them when `publishData`.
        case channels
        /// Session `session` ended: its subscribe transport closes.
        case leave
        /// The channel ended on its node (or this node stops relaying it): everything closes.
        case close
    }

    var op: Op
    var channel: String
    /// The channel's node: a later owner of the same channel gets a relay of its own.
    var owner: String
    var uplink: EdgeUplink?
    var track: TrackInfo?
    var trackId: String?
    var ssrc: UInt32?
    var session: String?
    var uid: String?
    var layer: String?
    var sdp: String?
    var revision: Int?
    /// `channels`: the session's token grants `publish_data`.
    var publishData: Bool?

    enum CodingKeys: String, CodingKey {
        case op, channel, owner, uplink, track, ssrc, session, uid, layer, sdp, revision
        case trackId = "track_id", publishData = "publish_data"
    }

    init(_ op: Op, channel: String, owner: String) {
        self.op = op
        self.channel = channel
        self.owner = owner
    }
}

/// The node-to-node transport the channel's node offers (it is ICE-lite and the DTLS server;
/// the relaying node checks, nominates and is the DTLS client, RFC 8445 §6.1.1, RFC 5763 §5).
struct EdgeUplink: Codable, Sendable, Equatable {
    /// The relaying node's ICE credentials (chosen by the channel's node, which must know them).
    var ufrag: String
    var pwd: String
    /// The channel's node's credentials, certificate fingerprint (`sha-256 AB:…`) and candidates (`ip port`).
    var ownerUfrag: String
    var ownerPwd: String
    var fingerprint: String
    var candidates: [String]

    enum CodingKeys: String, CodingKey {
        case ufrag, pwd, fingerprint, candidates
        case ownerUfrag = "owner_ufrag", ownerPwd = "owner_pwd"
    }
}

/// What a relaying node answers.
struct EdgeAnswer: Codable, Sendable, Equatable {
    /// `open`: the relaying node's certificate fingerprint.
    var fingerprint: String?
    /// Session calls: the subscribe transport's offers the call made, in order, for the channel's
    /// node to send to the client.
    var offers: [SessionDescriptionMessage] = []
}
