import RTCNet

/// Timings and limits of the SFU; the defaults suit WebRTC browsers and the SRTC SDKs.
public struct SFUConfiguration: Sendable {
    /// How often timers run on the I/O thread (NACK retries, feedback, reports), from the media
    /// port's 10 ms tick: shorter intervals run every tick.
    public var tickInterval: Duration = .milliseconds(20)
    /// Receiver and sender reports, per transport.
    public var reportIntervalDuration: Duration = .seconds(1)
    /// Transport-cc feedback to publishers (browsers expect 50–100 ms).
    public var transportFeedbackIntervalDuration: Duration = .milliseconds(50)
    /// Active-speaker evaluation, per router.
    public var activeSpeakerIntervalDuration: Duration = .milliseconds(250)
    /// Quality reports, per participant.
    public var qualityIntervalDuration: Duration = .seconds(5)
    /// Smoothing time constant of speaker levels.
    public var speakerSmoothing: Duration = .milliseconds(400)
    /// Speakers quieter than this (in -dBov, RFC 6464) count as silent.
    public var speakerSilenceDBov: Double = 50
    /// The REMB cap sent to publishers that negotiated `goog-remb`, bits per second.
    public var maxIncomingBitrate: Int = 10_000_000
    /// The scheduling priority asked for the media port's I/O thread, where every packet is
    /// forwarded (`SFUWorker.port.ioThreadPriority` tells what it got).
    public var ioThreadPriority: IOThreadPriority = .normal
    /// The I/O thread's name (`srtc-media-<index>` for a server's workers; 15 bytes at most).
    public var threadName = "srtc-media-port"

    public init() {}

    // MARK: - Internal units (µs)

    var reportInterval: Int64 { Self.micros(reportIntervalDuration) }
    var transportFeedbackInterval: Int64 { Self.micros(transportFeedbackIntervalDuration) }
    var activeSpeakerInterval: Int64 { Self.micros(activeSpeakerIntervalDuration) }
    var qualityInterval: Int64 { Self.micros(qualityIntervalDuration) }
    /// NACK pacing toward publishers when no RTT is known.
    var defaultRoundTripTime: Int64 { 100_000 }
    var bandwidthEstimator: BandwidthEstimator.Configuration { BandwidthEstimator.Configuration() }
    var speakers: ActiveSpeakerDetector.Configuration {
        var speakers = ActiveSpeakerDetector.Configuration()
        speakers.timeConstant = max(1, Self.micros(speakerSmoothing))
        speakers.silenceThreshold = AudioLevel.amplitude(dBov: UInt8(min(127, max(0, speakerSilenceDBov.rounded()))))
        return speakers
    }

    static func micros(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
