import EgressProtocol

/// A composite as the API shows it (docs/egress.md, "Composites").
struct CompositeInfo: Encodable, Sendable, Equatable {
    /// `starting`, `running`, `restarting` (the worker died and is being restarted), `stopped`, `failed`.
    enum Status: String, Encodable, Sendable { case starting, running, restarting, stopped, failed }

    var compositeId: String
    var channel: String
    var uid: String
    var layout: EgressLayout
    var width: Int
    var height: Int
    var frameRate: Int
    var bitrate: Int
    var audio: Bool
    var status: Status
    var restarts: Int
    var startedAt: Int64
    var endedAt: Int64?
    var error: String?
    var live: LiveInfo?

    enum CodingKeys: String, CodingKey {
        case channel, uid, layout, width, height, bitrate, audio, status, restarts, error, live
        case compositeId = "composite_id"
        case frameRate = "frame_rate"
        case startedAt = "started_at"
        case endedAt = "ended_at"
    }
}

/// A composite's live output.
struct LiveInfo: Encodable, Sendable, Equatable {
    /// `starting`, `live`, `ended`, `failed`.
    enum Status: String, Encodable, Sendable { case starting, live, ended, failed }

    /// Path of the HLS playlist on this server (`/live/<app_id>/<channel>/index.m3u8`), when HLS is on.
    var hlsURL: String?
    var rtmpURL: String?
    var status: Status
    var startedAt: Int64
    var endedAt: Int64?
    var error: String?

    enum CodingKeys: String, CodingKey {
        case status, error
        case hlsURL = "hls_url"
        case rtmpURL = "rtmp_url"
        case startedAt = "started_at"
        case endedAt = "ended_at"
    }
}

/// A recording as the API and the `recording_finished` webhook show it.
struct RecordingInfo: Codable, Sendable, Equatable {
    /// `starting`, `recording`, `finished` (complete file), `incomplete` (cut short by a crash,
    /// readable up to it), `failed` (nothing usable: no media, or the disk failed).
    enum Status: String, Codable, Sendable { case starting, recording, finished, incomplete, failed }

    var recordingId: String
    var channel: String
    var kind: RecordingKind
    var format: RecordingFormat
    /// The recorded publisher (a user, or the composite's uid) and track description.
    var uid: String
    var desc: String?
    /// The file, relative to the recording directory (`<app_id>/<channel>/<recording_id>.webm`).
    var file: String
    var status: Status
    var startedAt: Int64
    var endedAt: Int64?
    var durationMs: Int64?
    var sizeBytes: Int64?
    var error: String?

    enum CodingKeys: String, CodingKey {
        case channel, kind, format, uid, desc, file, status, error
        case recordingId = "recording_id"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case durationMs = "duration_ms"
        case sizeBytes = "size_bytes"
    }
}
