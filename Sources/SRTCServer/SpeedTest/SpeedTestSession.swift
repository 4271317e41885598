import RTCNet
import RTCWire

/// One client's speed test on the server: answers pings, counts uplink load, reports it, and
/// paces the downlink load the client asked for. A value type driven by `SpeedTestResponder`
/// on the media port's I/O thread; `reply` and `downlinkDue` say what to send.
struct SpeedTestSession {
    /// Downlink load being sent.
    struct Downlink {
        var packetSize: Int
        /// Microseconds between datagrams at the requested rate.
        var intervalMicros: Double
        var nextSendMicros: Double
        var endMicros: UInt64
        var sequence: UInt32 = 0
    }

    let id: UInt64
    let address: SocketAddress
    /// `iss/jti` of the token that opened it: one live session per token.
    let tokenKey: String
    let limits: SpeedTestLimits
    let endMicros: UInt64
    private(set) var lastHeardMicros: UInt64
    private(set) var pings = SpeedTestArrivals()
    private(set) var data = SpeedTestArrivals()
    private(set) var downlink: Downlink?

    /// A session lingers this long without a datagram from its client before it is dropped.
    static let idleMicros: UInt64 = 5_000_000
    /// A late tick sends at most this much backlog at once (the rest is skipped, not bunched).
    static let maxCatchUpMicros: Double = 50_000

    init(id: UInt64, address: SocketAddress, tokenKey: String, limits: SpeedTestLimits, now: UInt64) {
        self.id = id
        self.address = address
        self.tokenKey = tokenKey
        self.limits = limits
        self.endMicros = now + UInt64(limits.maxDurationMs) * 1000
        lastHeardMicros = now
    }

    /// Whether the session is over (its time is up or its client went quiet).
    func isExpired(now: UInt64) -> Bool {
        now >= endMicros || now >= lastHeardMicros + Self.idleMicros
    }

    /// Notes a datagram from the client that needs no other handling (a WebSocket pull).
    mutating func heard(now: UInt64) { lastHeardMicros = now }

    /// Handles a datagram of this session from its address; returns the answer, if any. Every
    /// answer is at most as long as the datagram it answers.
    mutating func receive(_ packet: SpeedTestPacket, now: UInt64) -> SpeedTestPacket? {
        lastHeardMicros = now
        switch packet.kind {
        case .ping:
            pings.record(bytes: packet.size, sentMicros: packet.timestampMicros, arrivalMicros: now)
            let pong = SpeedTestPacket(kind: .pong, session: id, sequence: packet.sequence, timestampMicros: now,
                                       body: .pong(echoedTimestamp: packet.timestampMicros, pingsReceived: pings.packets), size: packet.size)
            return pong.size <= packet.size ? pong : nil
        case .data:
            data.record(bytes: packet.size, sentMicros: packet.timestampMicros, arrivalMicros: now)
            return nil
        case .reportRequest:
            let report = SpeedTestReport(pingsReceived: pings.packets, pingJitterMicros: UInt32(min(pings.jitterMicros, Double(UInt32.max))),
                                         dataPackets: data.packets, dataBytes: data.bytes,
                                         firstDataMicros: data.firstArrivalMicros, lastDataMicros: data.lastArrivalMicros)
            let answer = SpeedTestPacket(kind: .report, session: id, sequence: packet.sequence, timestampMicros: now,
                                         body: .report(report), size: packet.size)
            return answer.size <= packet.size ? answer : nil
        case .downlinkStart:
            guard downlink == nil || downlink!.endMicros <= now,
                  case .downlinkStart(let bitrate, let durationMs, let size) = packet.body, bitrate > 0 else { return nil }
            let rate = Double(min(bitrate, limits.maxDownlinkBitrate))
            let packetSize = min(max(Int(size), SpeedTestPacket.headerSize), SpeedTestPacket.maximumSize)
            downlink = Downlink(packetSize: packetSize, intervalMicros: Double(packetSize * 8) * 1e6 / rate,
                                nextSendMicros: Double(now), endMicros: min(endMicros, now + UInt64(durationMs) * 1000))
            return nil
        case .hello, .welcome, .reject, .pong, .downlinkData, .report, .bye, .downlinkPull:
            return nil
        }
    }

    /// Calls `send` for each downlink datagram due by `now` (sequence number, size).
    mutating func downlinkDue(now: UInt64, _ send: (UInt32, Int) -> Void) {
        guard var d = downlink else { return }
        let limit = min(Double(now), Double(d.endMicros))
        if d.nextSendMicros < limit - Self.maxCatchUpMicros { d.nextSendMicros = limit - Self.maxCatchUpMicros }
        while d.nextSendMicros <= limit {
            send(d.sequence, d.packetSize)
            d.sequence &+= 1
            d.nextSendMicros += d.intervalMicros
        }
        downlink = now >= d.endMicros ? nil : d
    }
}
