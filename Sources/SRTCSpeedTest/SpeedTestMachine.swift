import RTCWire
import SRTCCore
import SRTCProtocol

/// The client side of the speed test (docs/speed-test.md) as a state machine without I/O:
/// `start`, `receive` and `tick` send datagrams through a closure and return what the app should
/// hear. Times are microseconds on one monotonic clock. `SpeedTester` drives it from a UDP socket.
///
/// Timeline: hello until welcome (≤ 3 s) → latency probes (30 % of the duration: a 64-byte ping
/// every 2.5 ms, answered by same-size pongs; 480 probes each way in a 4 s test) → uplink load (35 %) → the server's report → downlink
/// load (35 %) → result. Loss, RTT and jitter come from the probes, sent before any load so
/// queues filled by the load neither drop nor delay them; bandwidth comes from the load phases.
struct SpeedTestMachine {
    // MARK: - Types

    enum Event: Equatable {
        case progress(SpeedTestProgress)
        case finished(SpeedTestResult)
        case failed(SRTCError)
    }

    typealias Send = (SpeedTestPacket) -> Void

    private enum Phase { case connecting, latency, uplink, report, downlink, done }

    // MARK: - Constants

    static let helloInterval: UInt64 = 250_000
    static let helloAttempts = 12
    static let pingInterval: Double = 2_500
    static let pingSize = 64
    static let loadPacketSize = 1200
    static let reportRequestSize = 64
    static let retryInterval: UInt64 = 250_000
    static let retries = 4
    /// Time for datagrams still in flight (and in the path's queues) after a phase ends.
    static let drain: UInt64 = 250_000
    static let progressInterval: UInt64 = 500_000
    static let maxCatchUp: Double = 50_000

    // MARK: - State

    let params: SpeedTestParams
    private var phase = Phase.connecting
    private var session: UInt64 = 0
    private var limits = SpeedTestLimits(maxUplinkBitrate: 0, maxDownlinkBitrate: 0, maxDurationMs: 0)
    private var startMicros: UInt64 = 0
    private var phaseEnd: UInt64 = 0
    private var nextAction: Double = 0
    private var attempts = 0
    private var sequence: UInt32 = 0
    private var nextProgress: UInt64 = 0
    /// Phase lengths once the server's limits are known.
    private var latencyLength: UInt64 = 0
    private var loadLength: UInt64 = 0
    private var uplinkInterval: Double = 0
    private var downlinkBitrate: UInt32 = 0

    private var pingsSent: UInt32 = 0
    private var rtts: [Double] = []
    private var pongs = SpeedTestArrivals()
    private var serverPings: UInt32 = 0
    private var report: SpeedTestReport?
    private var downlink = SpeedTestArrivals()

    /// - Parameter params: already clamped (see `SpeedTestParams.clamped`).
    init(params: SpeedTestParams) {
        self.params = params
        rtts.reserveCapacity(Int(params.duration * 0.3 * 1e6 / Self.pingInterval) + 16)
    }

    // MARK: - Driving

    /// Sends the first hello.
    mutating func start(now: UInt64, send: Send) {
        startMicros = now
        nextProgress = now + Self.progressInterval
        sendHello(now: now, send: send)
    }

    /// Ends the test early: the server is told (`bye`) so it stops any downlink load.
    mutating func stop(now: UInt64, send: Send) {
        if session != 0, phase != .done { send(SpeedTestPacket(kind: .bye, session: session, timestampMicros: now)) }
        phase = .done
    }

    /// Handles a datagram from the server.
    mutating func receive(_ packet: SpeedTestPacket, now: UInt64, send: Send) -> Event? {
        switch (phase, packet.kind, packet.body) {
        case (.connecting, .welcome, .welcome(let serverLimits)):
            session = packet.session
            limits = serverLimits
            let total = UInt64(min(params.duration * 1e6, max(2e6, Double(serverLimits.maxDurationMs) * 1000 - 2e6)))
            latencyLength = total * 3 / 10
            loadLength = (total - latencyLength) / 2
            let upRate = Double(min(params.expectedUplinkBitrate, Int(serverLimits.maxUplinkBitrate)))
            uplinkInterval = Double(Self.loadPacketSize * 8) * 1e6 / max(upRate, 1)
            downlinkBitrate = UInt32(min(params.expectedDownlinkBitrate, Int(serverLimits.maxDownlinkBitrate)))
            enter(.latency, now: now, length: latencyLength)
            return progress(now: now)
        case (.connecting, .reject, .reject(let code)):
            phase = .done
            let name = APIErrorCode(rawValue: Int(code))?.name ?? "refused"
            return .failed(.server(code: Int(code), message: "the server refused the speed test: \(name)"))
        case (_, .pong, .pong(let echoed, let received)) where packet.session == session && phase != .connecting:
            guard now >= echoed else { return nil }
            rtts.append(Double(now - echoed) / 1000)
            pongs.record(bytes: packet.size, sentMicros: packet.timestampMicros, arrivalMicros: now)
            serverPings = max(serverPings, received)
        case (.report, .report, .report(let r)) where packet.session == session:
            report = r
            serverPings = max(serverPings, r.pingsReceived)
            startDownlink(now: now, send: send)
            return progress(now: now)
        case (.downlink, .downlinkData, _) where packet.session == session:
            downlink.record(bytes: packet.size, sentMicros: packet.timestampMicros, arrivalMicros: now)
        default:
            break
        }
        return nil
    }

    /// Sends what is due and moves through the phases.
    mutating func tick(now: UInt64, send: Send) -> Event? {
        switch phase {
        case .connecting:
            guard Double(now) >= nextAction else { break }
            guard attempts < Self.helloAttempts else {
                phase = .done
                return .failed(.timeout("no answer from the speed-test server \(params.serverAddress):\(params.serverPort) (address, port or token?)"))
            }
            sendHello(now: now, send: send)
        case .latency:
            for seq in due(now: now, interval: Self.pingInterval) {
                pingsSent += 1
                send(SpeedTestPacket(kind: .ping, session: session, sequence: seq, timestampMicros: now, size: Self.pingSize))
            }
            if now >= phaseEnd {
                enter(.uplink, now: now, length: loadLength)
                return progress(now: now)
            }
        case .uplink:
            for seq in due(now: now, interval: uplinkInterval) {
                send(SpeedTestPacket(kind: .data, session: session, sequence: seq, timestampMicros: now, size: Self.loadPacketSize))
            }
            if now >= phaseEnd {
                phase = .report
                attempts = 0
                nextAction = Double(now + Self.drain)
            }
        case .report:
            guard Double(now) >= nextAction else { break }
            guard attempts < Self.retries else {
                startDownlink(now: now, send: send)  // no report: the uplink figures stay 0
                return progress(now: now)
            }
            attempts += 1
            nextAction = Double(now + Self.retryInterval)
            send(SpeedTestPacket(kind: .reportRequest, session: session, sequence: 0, timestampMicros: now, size: Self.reportRequestSize))
        case .downlink:
            if downlink.packets == 0, Double(now) >= nextAction, attempts < Self.retries { sendDownlinkStart(now: now, send: send) }
            if now >= phaseEnd + Self.drain {
                phase = .done
                send(SpeedTestPacket(kind: .bye, session: session, timestampMicros: now))
                return .finished(result())
            }
        case .done:
            return nil
        }
        if now >= nextProgress, phase != .done {
            nextProgress = now + Self.progressInterval
            return progress(now: now)
        }
        return nil
    }

    // MARK: - Steps

    private mutating func sendHello(now: UInt64, send: Send) {
        attempts += 1
        nextAction = Double(now + Self.helloInterval)
        send(SpeedTestPacket(kind: .hello, timestampMicros: now, body: .hello(token: params.token), size: SpeedTestPacket.minimumHelloSize))
    }

    private mutating func enter(_ next: Phase, now: UInt64, length: UInt64) {
        phase = next
        phaseEnd = now + length
        nextAction = Double(now)
        sequence = 0
    }

    /// The sequence numbers of the datagrams due by `now` at one every `interval` µs until the
    /// phase ends; a late tick catches up at most `maxCatchUp` (the rest is skipped: bunching it
    /// would measure a burst, not the path).
    private mutating func due(now: UInt64, interval: Double) -> Range<UInt32> {
        let limit = Double(min(now, phaseEnd))
        if nextAction < limit - Self.maxCatchUp { nextAction = limit - Self.maxCatchUp }
        let first = sequence
        while nextAction < limit {
            sequence &+= 1
            nextAction += interval
        }
        return first ..< sequence
    }

    private mutating func startDownlink(now: UInt64, send: Send) {
        enter(.downlink, now: now, length: loadLength)
        attempts = 0
        sendDownlinkStart(now: now, send: send)
    }

    private mutating func sendDownlinkStart(now: UInt64, send: Send) {
        attempts += 1
        nextAction = Double(now + Self.retryInterval)
        let remaining = UInt32(clamping: (phaseEnd > now ? phaseEnd - now : 0) / 1000)
        send(SpeedTestPacket(kind: .downlinkStart, session: session, timestampMicros: now,
                             body: .downlinkStart(bitrate: downlinkBitrate, durationMs: remaining, packetSize: UInt16(Self.loadPacketSize))))
    }

    private func progress(now: UInt64) -> Event {
        let elapsed = Double(now - startMicros)
        let total = Double(latencyLength + 2 * loadLength)
        let phase: SpeedTestProgress.Phase = switch self.phase {
        case .connecting: .connecting
        case .latency: .latency
        case .uplink, .report: .uplink
        case .downlink, .done: .downlink
        }
        return .progress(SpeedTestProgress(linkId: params.linkId, phase: phase, fraction: total > 0 ? min(1, elapsed / total) : 0,
                                           rttMs: Self.median(rtts)))
    }

    // MARK: - Result

    func result() -> SpeedTestResult {
        let upLoss = pingsSent == 0 ? 1 : max(0, 1 - Double(serverPings) / Double(pingsSent))
        let downLoss = serverPings == 0 ? 1 : max(0, 1 - Double(pongs.packets) / Double(serverPings))
        let uplink = SpeedTestLinkReport(bandwidth: Int(report?.dataBitrate ?? 0), packetLossRate: upLoss,
                                         jitterMs: Double(report?.pingJitterMicros ?? 0) / 1000)
        let downlink = SpeedTestLinkReport(bandwidth: Int(self.downlink.bitrate), packetLossRate: downLoss,
                                           jitterMs: pongs.jitterMicros / 1000)
        let rtt = Self.median(rtts)
        let quality = SpeedTestGrade.grade(rttMs: rtt, uplink: uplink, downlink: downlink,
                                           expectedUplink: params.expectedUplinkBitrate, expectedDownlink: params.expectedDownlinkBitrate,
                                           probesReturned: pongs.packets > 0)
        return SpeedTestResult(linkId: params.linkId, rttMs: rtt, uplink: uplink, downlink: downlink, quality: quality)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}

extension SpeedTestParams {
    /// The parameters with duration and bitrates brought into their documented ranges.
    var clamped: SpeedTestParams {
        var p = self
        p.duration = min(max(duration.isFinite ? duration : 10, Self.durationRange.lowerBound), Self.durationRange.upperBound)
        p.expectedUplinkBitrate = min(max(expectedUplinkBitrate, Self.bitrateRange.lowerBound), Self.bitrateRange.upperBound)
        p.expectedDownlinkBitrate = min(max(expectedDownlinkBitrate, Self.bitrateRange.lowerBound), Self.bitrateRange.upperBound)
        return p
    }
}
