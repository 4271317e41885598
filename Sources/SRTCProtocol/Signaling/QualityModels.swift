/// Link statistics of one direction over one report interval.
public struct LinkStats: Codable, Sendable, Equatable {
    public var bitrateBps: Int
    public var packets: Int
    /// Fraction of packets lost, 0...1.
    public var lossRate: Double
    public var jitterMs: Double

    public init(bitrateBps: Int = 0, packets: Int = 0, lossRate: Double = 0, jitterMs: Double = 0) {
        self.bitrateBps = bitrateBps; self.packets = packets; self.lossRate = lossRate; self.jitterMs = jitterMs
    }

    enum CodingKeys: String, CodingKey {
        case packets
        case bitrateBps = "bitrate_bps"
        case lossRate = "loss_rate"
        case jitterMs = "jitter_ms"
    }
}

/// The server's periodic measurement of one participant's connection (the raw value stream of
/// `didReceiveQualityReport`).
public struct QualityReport: Codable, Sendable, Equatable {
    public var uid: String
    /// Unix milliseconds.
    public var timestamp: Int64
    /// What the server received from this participant.
    public var upstream: LinkStats
    /// What the server sent to this participant, with loss from its receiver reports.
    public var downstream: LinkStats
    public var rttMs: Double
    /// Bandwidth estimate of the downstream link (REMB / transport-wide CC), bits per second.
    public var availableBitrateBps: Int?
    public var quality: ConnectionQuality

    public init(uid: String, timestamp: Int64, upstream: LinkStats, downstream: LinkStats, rttMs: Double, availableBitrateBps: Int? = nil, quality: ConnectionQuality) {
        self.uid = uid; self.timestamp = timestamp; self.upstream = upstream; self.downstream = downstream
        self.rttMs = rttMs; self.availableBitrateBps = availableBitrateBps; self.quality = quality
    }

    enum CodingKeys: String, CodingKey {
        case uid, timestamp, upstream, downstream, quality
        case rttMs = "rtt_ms"
        case availableBitrateBps = "available_bitrate_bps"
    }
}

/// A connection-quality level, best first.
public enum ConnectionQuality: String, Codable, Sendable, Equatable, Comparable, CaseIterable {
    case excellent, good, poor, lost

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: Self, b: Self) -> Bool { a.rank > b.rank }
}

/// A level change, sent only when the level changes (after hysteresis).
public struct ConnectionQualityChange: Codable, Sendable, Equatable {
    public var uid: String
    public var quality: ConnectionQuality
    public var previous: ConnectionQuality

    public init(uid: String, quality: ConnectionQuality, previous: ConnectionQuality) {
        self.uid = uid; self.quality = quality; self.previous = previous
    }
}

/// One speaker of an active-speakers snapshot.
public struct ActiveSpeaker: Codable, Sendable, Equatable {
    public var uid: String
    public var trackId: String
    /// Smoothed loudness, 0 (silence) ... 1 (0 dBov).
    public var level: Double

    public init(uid: String, trackId: String, level: Double) {
        self.uid = uid; self.trackId = trackId; self.level = level
    }

    enum CodingKeys: String, CodingKey {
        case uid, level
        case trackId = "track_id"
    }
}

/// The full list of current speakers, loudest first; empty when nobody speaks.
public struct ActiveSpeakersSnapshot: Codable, Sendable, Equatable {
    public var speakers: [ActiveSpeaker]
    public init(speakers: [ActiveSpeaker]) { self.speakers = speakers }
}

/// A simulcast layer switch that took effect (on a key frame) for one of my subscriptions.
public struct LayerSwitchedInfo: Codable, Sendable, Equatable {
    public var uid: String
    public var trackId: String
    /// The layer now delivered (`camera_big` / `camera_small`); `none` (`pausedLayer`) while the
    /// server sends no video because my bandwidth cannot carry even the smallest layer.
    public var layer: String
    /// The layer delivered before; `none` when the video resumes after such a pause.
    public var previous: String?
    /// Why: the subscriber asked, or its bandwidth estimate lowered/raised it (or paused it).
    public var cause: String

    /// The `layer` of a video paused for bandwidth (docs/protocol.md, docs/network.md).
    public static let pausedLayer = "none"

    /// Whether this switch paused the video (it resumes with a switch whose `previous` is `none`).
    public var isPaused: Bool { layer == Self.pausedLayer }

    public init(uid: String, trackId: String, layer: String, previous: String?, cause: String) {
        self.uid = uid; self.trackId = trackId; self.layer = layer; self.previous = previous; self.cause = cause
    }

    enum CodingKeys: String, CodingKey {
        case uid, layer, previous, cause
        case trackId = "track_id"
    }
}
