/// One direction's statistics over a quality interval.
public struct LinkQualityStats: Hashable, Sendable {
    public var bitrate: Int
    public var packets: Int
    /// 0…1.
    public var lossRate: Double
    public var jitterMs: Double

    public init(bitrate: Int = 0, packets: Int = 0, lossRate: Double = 0, jitterMs: Double = 0) {
        self.bitrate = bitrate
        self.packets = packets
        self.lossRate = lossRate
        self.jitterMs = jitterMs
    }
}

/// A participant's link quality over one interval (5 s by default); the server maps it to the
/// protocol's `QualityReport`.
public struct ParticipantQualityReport: Hashable, Sendable {
    public var participant: ParticipantID
    /// Unix milliseconds at the end of the interval.
    public var timestamp: Int64
    /// What the SFU received from the participant.
    public var upstream: LinkQualityStats
    /// What the SFU sent the participant, with loss and jitter from its receiver reports.
    public var downstream: LinkQualityStats
    /// Round-trip time from receiver reports (RFC 3550 §6.4.1 LSR/DLSR); nil until measured.
    public var rttMs: Double?
    /// The subscribe transport's bandwidth estimate, bits per second.
    public var availableBitrate: Int?
    /// The level after hysteresis.
    public var level: QualityLevel
}
