/// One direction of a speed test.
public struct SpeedTestLinkReport: Sendable, Equatable {
    /// Bits per second that arrived under load (UDP payload), at most what was sent.
    public var bandwidth: Int
    /// Fraction of the latency probes lost on this direction, 0…1 (measured before any load).
    public var packetLossRate: Double
    /// RFC 3550 interarrival jitter of the latency probes, in milliseconds.
    public var jitterMs: Double

    public init(bandwidth: Int, packetLossRate: Double, jitterMs: Double) {
        self.bandwidth = bandwidth
        self.packetLossRate = packetLossRate
        self.jitterMs = jitterMs
    }
}

/// The overall grade of a speed test, best first (`SpeedTestResult.quality`).
public enum SpeedTestQuality: Int, Sendable, Comparable, CaseIterable {
    /// Fit for HD video both ways.
    case excellent = 1
    /// Fit for video, with little margin.
    case good = 2
    /// Usable, with visible impairments.
    case poor = 3
    /// Audio only, or video with heavy impairments.
    case bad = 4
    /// Barely usable.
    case veryBad = 5
    /// Nothing came back: the path (or the server) is down.
    case down = 6

    public static func < (a: SpeedTestQuality, b: SpeedTestQuality) -> Bool { a.rawValue < b.rawValue }
}

/// The result of a completed speed test (`engine(_:speedTestDidFinish:)`).
public struct SpeedTestResult: Sendable, Equatable {
    /// `SpeedTestParams.linkId`.
    public var linkId: String
    /// Median round-trip time of the latency probes, in milliseconds.
    public var rttMs: Double
    public var uplink: SpeedTestLinkReport
    public var downlink: SpeedTestLinkReport
    public var quality: SpeedTestQuality

    public init(linkId: String, rttMs: Double, uplink: SpeedTestLinkReport, downlink: SpeedTestLinkReport, quality: SpeedTestQuality) {
        self.linkId = linkId
        self.rttMs = rttMs
        self.uplink = uplink
        self.downlink = downlink
        self.quality = quality
    }
}

/// Where a running speed test is (`engine(_:speedTestDidProgress:)`).
public struct SpeedTestProgress: Sendable, Equatable {
    /// The measurement under way.
    public enum Phase: String, Sendable {
        /// Opening the session with the server.
        case connecting
        /// Latency, jitter and loss probes, without load.
        case latency
        /// Uplink load.
        case uplink
        /// Downlink load.
        case downlink
    }

    public var linkId: String
    public var phase: Phase
    /// Share of the test's duration elapsed, 0…1.
    public var fraction: Double
    /// Median RTT so far (0 until the first probe returned).
    public var rttMs: Double

    public init(linkId: String, phase: Phase, fraction: Double, rttMs: Double) {
        self.linkId = linkId
        self.phase = phase
        self.fraction = fraction
        self.rttMs = rttMs
    }
}
