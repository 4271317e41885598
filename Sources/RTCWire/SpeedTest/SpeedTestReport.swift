/// The server's uplink counters for one speed-test session (the body of a `report`), on the
/// server's clock.
///
/// ```
/// | pings received (32) | ping jitter µs (32) | data packets (32) |
/// | data bytes (64)                                              |
/// | first data arrival µs (64)                                   |
/// | last data arrival µs (64)                                    |
/// ```
public struct SpeedTestReport: Sendable, Equatable {
    static let size = 36

    /// Pings that reached the server in this session.
    public var pingsReceived: UInt32
    /// RFC 3550 §6.4.1 interarrival jitter of those pings, in microseconds.
    public var pingJitterMicros: UInt32
    /// Uplink `data` datagrams counted.
    public var dataPackets: UInt32
    /// Their bytes (whole datagrams).
    public var dataBytes: UInt64
    /// Arrival of the first and of the last one, server clock.
    public var firstDataMicros: UInt64
    public var lastDataMicros: UInt64

    public init(pingsReceived: UInt32 = 0, pingJitterMicros: UInt32 = 0, dataPackets: UInt32 = 0, dataBytes: UInt64 = 0,
                firstDataMicros: UInt64 = 0, lastDataMicros: UInt64 = 0) {
        self.pingsReceived = pingsReceived
        self.pingJitterMicros = pingJitterMicros
        self.dataPackets = dataPackets
        self.dataBytes = dataBytes
        self.firstDataMicros = firstDataMicros
        self.lastDataMicros = lastDataMicros
    }

    /// The received load rate in bits per second: the bytes after the first datagram over the time
    /// from its arrival to the last one's (the first datagram's own bytes arrived before that span).
    /// 0 with fewer than two datagrams.
    public var dataBitrate: Double {
        guard dataPackets >= 2, lastDataMicros > firstDataMicros else { return 0 }
        let perPacket = Double(dataBytes) / Double(dataPackets)
        return (Double(dataBytes) - perPacket) * 8 / (Double(lastDataMicros - firstDataMicros) / 1e6)
    }

    init(parsing b: UnsafeRawBufferPointer) {
        pingsReceived = b.u32(0)
        pingJitterMicros = b.u32(4)
        dataPackets = b.u32(8)
        dataBytes = b.u64(12)
        firstDataMicros = b.u64(20)
        lastDataMicros = b.u64(28)
    }

    func write(into out: inout ByteWriter) {
        out.u32(pingsReceived)
        out.u32(pingJitterMicros)
        out.u32(dataPackets)
        out.u64(dataBytes)
        out.u64(firstDataMicros)
        out.u64(lastDataMicros)
    }
}
