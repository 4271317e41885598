import RTCWire

/// What one subscribed remote track received so far (RFC 3550 receiver statistics).
public struct ReceiveStatistics: Sendable, Equatable {
    /// RTP packets received (retransmissions included).
    public var packetsReceived: Int
    /// Packets expected but not received (cumulative, RFC 3550 §A.3).
    public var packetsLost: Int
    /// RTP bytes received (headers included).
    public var bytesReceived: Int
    /// Interarrival jitter in milliseconds (RFC 3550 §A.8).
    public var jitterMs: Double
    /// Frames decoded (video) or 20 ms frames played (audio, concealment included).
    public var framesDecoded: Int

    public init(packetsReceived: Int = 0, packetsLost: Int = 0, bytesReceived: Int = 0, jitterMs: Double = 0, framesDecoded: Int = 0) {
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.bytesReceived = bytesReceived
        self.jitterMs = jitterMs
        self.framesDecoded = framesDecoded
    }
}

extension RTPReceiveStatistics {
    func publicStatistics(framesDecoded: Int) -> ReceiveStatistics {
        ReceiveStatistics(packetsReceived: Int(clamping: packetsReceived), packetsLost: Int(max(0, cumulativeLost)),
                          bytesReceived: Int(clamping: bytesReceived), jitterMs: jitterMilliseconds, framesDecoded: framesDecoded)
    }
}
