/// A channel's live captions as the API shows them (docs/captions.md).
struct CaptionsInfo: Codable, Sendable, Equatable {
    /// `starting`, `running`, `restarting` (the worker died and is being restarted), `stopped`
    /// (`captions/stop`), `ended` (the channel emptied or closed), `failed`.
    enum Status: String, Codable, Sendable { case starting, running, restarting, stopped, ended, failed }

    var captionsId: String
    var channel: String
    var language: String
    var status: Status
    var restarts: Int
    var startedAt: Int64
    var endedAt: Int64?
    var error: String?

    enum CodingKeys: String, CodingKey {
        case channel, language, status, restarts, error
        case captionsId = "captions_id"
        case startedAt = "started_at"
        case endedAt = "ended_at"
    }
}

/// One final caption of the stored transcript (`captions/list`). Times are Unix milliseconds.
struct CaptionEntry: Encodable, Sendable, Equatable {
    var captionsId: String
    var uid: String
    var startMs: Int64
    var endMs: Int64
    var text: String

    enum CodingKeys: String, CodingKey {
        case uid, text
        case captionsId = "captions_id"
        case startMs = "start_ms"
        case endMs = "end_ms"
    }
}

/// The data of the `captions_started` and `captions_ended` webhooks.
struct CaptionsEvent: Encodable, Sendable {
    var captions: CaptionsInfo
    /// Why they ended (`captions_ended`): `stopped`, `idle`, `channel_closed`, `failed`.
    var reason: String?
}
