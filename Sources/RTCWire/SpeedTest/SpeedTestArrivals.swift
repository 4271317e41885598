/// Counts the arrivals of one speed-test stream (pings at the server, pongs or downlink load at
/// the client): datagrams, bytes, first and last arrival, and the RFC 3550 §6.4.1 interarrival
/// jitter computed from the sender's timestamps. A value type; no allocation.
public struct SpeedTestArrivals: Sendable, Equatable {
    public private(set) var packets: UInt32 = 0
    public private(set) var bytes: UInt64 = 0
    /// Arrival times, receiver's clock, microseconds.
    public private(set) var firstArrivalMicros: UInt64 = 0
    public private(set) var lastArrivalMicros: UInt64 = 0
    /// Smoothed jitter in microseconds, kept unrounded.
    public private(set) var jitterMicros: Double = 0
    private var previousTransit: Int64?

    public init() {}

    /// Records one arrival.
    /// - Parameters:
    ///   - sentMicros: the datagram's send time on the sender's clock.
    ///   - arrivalMicros: now on the receiver's clock.
    public mutating func record(bytes count: Int, sentMicros: UInt64, arrivalMicros: UInt64) {
        if packets == 0 { firstArrivalMicros = arrivalMicros }
        packets &+= 1
        bytes &+= UInt64(count)
        lastArrivalMicros = arrivalMicros
        // Transit = arrival − send on two unrelated clocks; only its change between datagrams
        // counts (§6.4.1: D(i,j) = (Rj − Ri) − (Sj − Si)).
        let transit = Int64(bitPattern: arrivalMicros &- sentMicros)
        if let previous = previousTransit {
            let d = Double((transit &- previous).magnitude)
            jitterMicros += (d - jitterMicros) / 16
        }
        previousTransit = transit
    }

    /// Bits per second from the first arrival to the last, not counting the first datagram's
    /// own bytes (see `SpeedTestReport.dataBitrate`); 0 with fewer than two datagrams.
    public var bitrate: Double {
        SpeedTestReport(dataPackets: packets, dataBytes: bytes, firstDataMicros: firstArrivalMicros,
                        lastDataMicros: lastArrivalMicros).dataBitrate
    }
}
