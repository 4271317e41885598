import RTCWire

/// Limits of the speed-test responder on the media port (docs/speed-test.md, "Limits").
public struct SpeedTestSettings: Sendable, Equatable {
    /// Whether the media port answers speed-test datagrams at all (`--speed-test`, on by default).
    public var enabled = true
    /// Highest downlink rate one session is sent, and the uplink rate it is told not to exceed.
    public var maxBitrate = 20_000_000
    /// Longest session, in seconds.
    public var maxDurationSeconds = 30
    /// Sessions at once on this server; a hello beyond gets `limit_reached`.
    public var maxSessions = 16
    /// Hellos accepted from one IP address per 10 s; more are dropped unanswered.
    public var hellosPerAddressPer10s = 10

    public init() {}
}

extension SpeedTestSettings {
    /// What a session is told in its welcome.
    var limits: SpeedTestLimits {
        let bitrate = UInt32(clamping: maxBitrate)
        return SpeedTestLimits(maxUplinkBitrate: bitrate, maxDownlinkBitrate: bitrate, maxDurationMs: UInt32(clamping: maxDurationSeconds * 1000))
    }
}
