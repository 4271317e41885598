import EgressProtocol

/// An ingress as the API shows it (docs/ingress.md, "RTMP, SRT and URL ingest").
struct IngressInfo: Codable, Sendable, Equatable {
    /// `waiting` (listening, no encoder pushes), `publishing` (its user is in the channel),
    /// `restarting` (the worker died and is being restarted), `ended` (deleted, or a pulled URL
    /// ended), `failed`.
    enum Status: String, Codable, Sendable { case waiting, publishing, restarting, ended, failed }

    /// What the current (or last) push carries.
    struct Media: Codable, Sendable, Equatable {
        var videoCodec: String?
        var audioCodec: String?
        var width: Int
        var height: Int
        /// `passthrough` (H.264 forwarded as it came) or `transcode` (VP8); nil without video.
        var videoMode: String?

        enum CodingKeys: String, CodingKey {
            case width, height
            case videoCodec = "video_codec"
            case audioCodec = "audio_codec"
            case videoMode = "video_mode"
        }
    }

    var ingressId: String
    var channel: String
    var uid: String
    var kind: IngressSettings.Kind
    /// Where an encoder pushes (RTMP: the server URL with the key as its last segment; SRT: with
    /// the key as `passphrase`), or the pulled URL.
    var url: String
    /// The stream key (RTMP, SRT); nil for a pull.
    var streamKey: String?
    var status: Status
    var media: Media?
    /// Pushes received so far.
    var sessions: Int
    var restarts: Int
    var createdAt: Int64
    var endedAt: Int64?
    var error: String?

    enum CodingKeys: String, CodingKey {
        case channel, uid, kind, url, status, media, sessions, restarts, error
        case ingressId = "ingress_id"
        case streamKey = "stream_key"
        case createdAt = "created_at"
        case endedAt = "ended_at"
    }
}

/// The data of the `ingress_started` and `ingress_ended` webhooks.
struct IngressEvent: Encodable, Sendable {
    var ingress: IngressInfo
    /// Why the push ended (`ingress_ended`): `eof`, `error: …`, `deleted`.
    var reason: String?
}
