/// One node of a cluster as the others see it: where to reach it, whether it takes new channels,
/// and its load, refreshed at every heartbeat (docs/deploy.md, "A cluster of nodes").
public struct NodeInfo: Codable, Sendable, Equatable {
    /// Unique per process (`--node-id`, else random at start).
    public var id: String
    /// Base URL of its HTTP server (API and signaling) as other nodes reach it.
    public var httpURL: String
    /// The address its SDP announces for media, if set (`--public-ip`).
    public var publicIP: String?
    /// The UDP media addresses it announces (`ip port`, its host candidates): the only addresses
    /// another node's relay connects to for its channels (`POST /server/v1/cluster/edge`, `open`).
    public var mediaAddresses: [String] = []
    /// Draining: serves its channels until they empty, takes no new ones.
    public var draining: Bool = false
    /// Live channels and connected participants on the node.
    public var channels: Int = 0
    public var participants: Int = 0
    /// CPU time the process used per second of wall time since the previous heartbeat (1.0 = one core).
    public var cpu: Double = 0
    /// RTP packets the node's SFU forwarded per second since the previous heartbeat.
    public var packetsPerSecond: Double = 0
    /// Unix milliseconds of the heartbeat that wrote this.
    public var heartbeatAt: Int64 = 0

    public init(id: String, httpURL: String, publicIP: String? = nil) {
        self.id = id
        self.httpURL = httpURL
        self.publicIP = publicIP
    }

    /// Orders candidates for a new channel: fewest participants, then fewest channels, then id
    /// (deterministic, so racing nodes pick the same one).
    static func lessLoaded(_ a: NodeInfo, _ b: NodeInfo) -> Bool {
        (a.participants, a.channels, a.id) < (b.participants, b.channels, b.id)
    }
}
