import Foundation
import RTCNet
import SRTCProtocol
import Synchronization
import TestRandom

/// The soak (`make soak`; a short one runs in `make test`): a real `srtc-server` process and
/// participants on loopback, each publishing Opus and simulcast VP8 and subscribing to everyone
/// else through a relay that loses 2 % of the packets and delays them by up to 30 ms, while
/// participants leave and rejoin, resume their signaling, restart ICE and switch layers at random.
///
/// It reports, each interval and at the end, the server's RSS, descriptors, threads and CPU, the
/// share of forwarded packets delivered (after NACK repair) and the share of video frames that came
/// out of the receivers' jitter buffers whole and in order, and fails on a server crash, on RSS or
/// descriptor growth past the bounds after the warm-up, or on delivery under 97 %.
// @unchecked Sendable: `random` and `incarnations` are used by run()'s setup and then only by the chaos task (run() waits for it); the rest is Mutex or `let`.
public final class SoakRunner: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var participants = 20
        public var duration: Duration = .seconds(30 * 60)
        /// Figures before this are not held against the bounds (caches fill, arenas grow).
        public var warmUp: Duration = .seconds(120)
        public var reportInterval: Duration = .seconds(60)
        /// The server→client path of every participant.
        public var downlink = LinkShaper.Shape(lossRate: 0.02, jitterMilliseconds: 30)
        /// Mean time between random events (over all participants).
        public var eventInterval: Duration = .seconds(3)
        /// Growth allowed after the warm-up.
        public var rssGrowthBound = 32 << 20
        public var descriptorGrowthBound = 32
        /// Least share of forwarded packets that must arrive.
        public var minimumDelivery = 0.97
        public var seed: UInt64 = 15
        /// Extra `srtc-server` flags.
        public var serverArguments: [String] = []
        public init() {}
    }

    /// One line of figures.
    public struct Sample: Sendable {
        public var elapsed: Duration
        public var server: ProcessStats?
        public var cpuShare: Double
        public var delivery: SoakTotals
        public var worstSubscriberDelivery: Double
        /// Events so far, by name ("join", "resume failed", …).
        public var events: [String: Int]
        /// Participants in the channel at the sample.
        public var participants: Int
        /// Events so far that failed (a rejoin, resume or ICE restart that did not complete).
        public var errors: Int { events.filter { $0.key.hasSuffix("failed") }.values.reduce(0, +) }
    }

    /// The verdict.
    public struct Result: Sendable {
        public var samples: [Sample]
        public var failures: [String]
        public var passed: Bool { failures.isEmpty }
    }

    let configuration: Configuration
    private let print: @Sendable (String) -> Void
    private static let app = (id: "app_soak", key: "key_soak_0123456789abcdef")
    private var random: SeededRandom
    /// Each uid's totals from incarnations that left, added to the live ones.
    private let retired = Mutex<[Int: SoakTotals]>([:])
    private var incarnations: [Int: Int] = [:]
    private let events = Mutex<[String: Int]>([:])
    private let state = Mutex<[Int: SoakParticipant]>([:])

    public init(configuration: Configuration, print: @escaping @Sendable (String) -> Void = { Swift.print($0); fflush(nil) }) {
        self.configuration = configuration
        self.print = print
        random = SeededRandom(seed: configuration.seed)
    }

    /// Runs the soak to the end (or to the first crash) and returns the verdict.
    public func run() async throws -> Result {
        let clip = try MediaClip(sizes: SoakParticipant.layers.map { ($0.width, $0.height) })
        let server = ServerProcess(arguments: ["--address-joins-per-second", "0", "--log-level", "warn"] + configuration.serverArguments,
                                   environment: ["SRTC_APP_ID": Self.app.id, "SRTC_APP_KEY": Self.app.key])
        defer { server.removeData() }
        try await server.start()
        let udp = try SocketAddress.resolve(host: "127.0.0.1", port: server.udpPort)
        print("soak: \(configuration.participants) participants, \(configuration.duration) (warm-up \(configuration.warmUp)), " +
              "loss \(configuration.downlink.lossRate * 100) %, jitter \(configuration.downlink.jitterMilliseconds) ms, server pid \(server.pid ?? 0)")

        for index in 0..<configuration.participants { try await join(index, server: server, udp: udp, clip: clip) }
        await syncSubscriptions()

        let start = ContinuousClock.now
        let media = Task { await pace(until: start + configuration.duration) }
        let chaos = Task { await runEvents(until: start + configuration.duration, server: server, udp: udp, clip: clip) }
        var samples: [Sample] = []
        var failures: [String] = []
        var last = (time: start, cpu: server.stats?.cpuSeconds ?? 0, totals: totals())
        var warm: ProcessStats?
        while ContinuousClock.now < start + configuration.duration {
            let next = min(last.time + configuration.reportInterval, start + configuration.duration)
            while ContinuousClock.now < next, server.isRunning { try await Task.sleep(for: .milliseconds(200)) }
            guard server.isRunning else {
                failures.append("the server exited:\n" + server.log.suffix(2000))
                break
            }
            let now = ContinuousClock.now, stats = server.stats, current = totals()
            let seconds = Double((now - last.time).components.seconds) + Double((now - last.time).components.attoseconds) / 1e18
            let sample = Sample(elapsed: now - start, server: stats, cpuShare: ((stats?.cpuSeconds ?? 0) - last.cpu) / max(seconds, 0.001),
                                delivery: current.all - last.totals.all, worstSubscriberDelivery: worstDelivery(current.bySubscriber, last.totals.bySubscriber),
                                events: events.withLock { $0 }, participants: state.withLock { $0.count })
            samples.append(sample)
            print(Self.line(sample))
            if warm == nil, now - start >= configuration.warmUp { warm = stats }
            last = (now, stats?.cpuSeconds ?? 0, current)
        }
        media.cancel()
        chaos.cancel()
        _ = await chaos.value
        for participant in state.withLock({ Array($0.values) }) { participant.stop() }
        if !server.isRunning, failures.isEmpty { failures.append("the server exited:\n" + server.log.suffix(2000)) }

        // The verdict: figures after the warm-up.
        let end = samples.last?.server
        if let warm, let end {
            let rss = end.rssBytes - warm.rssBytes, fds = end.descriptors - warm.descriptors
            if rss > configuration.rssGrowthBound { failures.append("RSS grew \(Self.mb(rss)) after the warm-up (bound \(Self.mb(configuration.rssGrowthBound)))") }
            if fds > configuration.descriptorGrowthBound { failures.append("descriptors grew by \(fds) after the warm-up (bound \(configuration.descriptorGrowthBound))") }
        }
        let afterWarmUp = samples.filter { $0.elapsed > configuration.warmUp }.reduce(SoakTotals()) { $0 + $1.delivery }
        let delivered = Self.share(afterWarmUp.videoReceived + afterWarmUp.audioReceived, of: afterWarmUp.videoExpected + afterWarmUp.audioExpected)
        if delivered < configuration.minimumDelivery {
            failures.append(String(format: "delivered %.2f %% of the forwarded packets (at least %.0f %% required)", delivered * 100, configuration.minimumDelivery * 100))
        }
        let result = Result(samples: samples, failures: failures)
        print(summary(result, warm: warm, end: end, afterWarmUp: afterWarmUp))
        await server.stop()
        return result
    }

    // MARK: - Participants

    private func token(uid: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.app.id, sub: uid, iat: now, nbf: now, exp: now + 6 * 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: "soak", publish: true, subscribe: true, publishData: true)),
                                key: Self.app.key)
    }

    private func join(_ index: Int, server: ServerProcess, udp: SocketAddress, clip: MediaClip) async throws {
        let incarnation = incarnations[index, default: 0]
        incarnations[index] = incarnation + 1
        let seed = configuration.seed &+ UInt64(index) &* 1000 &+ UInt64(incarnation)
        let uid = "p\(index)"
        let participant = try await SoakParticipant.join(uid: uid, index: index, incarnation: incarnation, wsURL: server.wsURL,
                                                         token: token(uid: uid), udp: udp, downlink: configuration.downlink, seed: seed, clip: clip)
        state.withLock { $0[index] = participant }
    }

    /// Everyone subscribes to every track of everyone else that it has not yet.
    private func syncSubscriptions() async {
        let live = state.withLock { $0 }
        for (index, participant) in live.sorted(by: { $0.key < $1.key }) {
            let others = live.filter { $0.key != index }.flatMap(\.value.tracks)
            await participant.subscribe(to: others, random: &random)
        }
    }

    private func totals() -> (all: SoakTotals, bySubscriber: [Int: SoakTotals]) {
        var by = retired.withLock { $0 }
        for (index, participant) in state.withLock({ $0 }) { by[index] = (by[index] ?? SoakTotals()) + participant.receiver.snapshot() }
        return (by.values.reduce(SoakTotals(), +), by)
    }

    private func worstDelivery(_ now: [Int: SoakTotals], _ before: [Int: SoakTotals]) -> Double {
        now.map { index, totals -> Double in
            let d = totals - (before[index] ?? SoakTotals())
            return Self.share(d.videoReceived + d.audioReceived, of: d.videoExpected + d.audioExpected)
        }.min() ?? 1
    }

    // MARK: - Pacing and events

    /// Audio every 20 ms, video at the clip's frame rate, receiver ticks every 20 ms; a late wake-up
    /// catches up, so what is sent depends on the time only.
    private func pace(until end: ContinuousClock.Instant) async {
        let start = ContinuousClock.now
        var audioDue = Duration.zero, videoDue = Duration.zero
        let frame = Duration.seconds(1) / MediaClip.frameRate
        while !Task.isCancelled, ContinuousClock.now < end {
            let elapsed = ContinuousClock.now - start
            let live = state.withLock { Array($0.values) }
            while elapsed >= audioDue {
                for p in live { p.sendAudio() }
                audioDue += .milliseconds(20)
            }
            while elapsed >= videoDue {
                for p in live { p.sendVideo() }
                videoDue += frame
            }
            for p in live { p.tick() }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    private func count(_ event: String) { events.withLock { $0[event, default: 0] += 1 } }

    /// One random event at a time, about every `eventInterval`.
    private func runEvents(until end: ContinuousClock.Instant, server: ServerProcess, udp: SocketAddress, clip: MediaClip) async {
        let mean = Double(configuration.eventInterval.components.seconds) + Double(configuration.eventInterval.components.attoseconds) / 1e18
        while !Task.isCancelled, ContinuousClock.now < end {
            let wait = mean * Double(random.next() % 2000) / 1000  // uniform in 0 ..< 2 × mean
            try? await Task.sleep(for: .milliseconds(Int64(wait * 1000)))
            guard !Task.isCancelled, server.isRunning, ContinuousClock.now < end else { return }
            let index = Int(random.next() % UInt64(configuration.participants))
            guard let participant = state.withLock({ $0[index] }) else { continue }
            switch random.next() % 5 {
            case 0:
                // Leave, then join again as a new session a moment later.
                state.withLock { $0[index] = nil }
                await participant.leave()
                let final = participant.receiver.snapshot()
                retired.withLock { $0[index] = ($0[index] ?? SoakTotals()) + final }
                count("leave")
                try? await Task.sleep(for: .milliseconds(Int64(500 + random.next() % 1500)))
                do {
                    try await join(index, server: server, udp: udp, clip: clip)
                    count("join")
                } catch {
                    count("join failed")
                    print("soak: p\(index) could not rejoin: \(error)")
                }
                await syncSubscriptions()
            case 1:
                do {
                    try await participant.client.resume()
                    count("resume")
                } catch {
                    count("resume failed")
                    print("soak: p\(index) could not resume: \(error)")
                }
            case 2:
                do {
                    try await participant.client.restartPublishICE(via: nil)
                    count("ice restart (publish)")
                } catch { count("ice restart failed") }
            case 3:
                do {
                    try await participant.client.restartSubscribeICE()
                    count("ice restart (subscribe)")
                } catch { count("ice restart failed") }
            default:
                if await participant.switchLayer(random: &random) { count("layer switch") }
            }
        }
    }

    // MARK: - Report

    static func share(_ part: Int, of whole: Int) -> Double { whole > 0 ? Double(part) / Double(whole) : 1 }
    static func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
    static func percent(_ x: Double) -> String { String(format: "%.2f %%", x * 100) }

    static func line(_ s: Sample) -> String {
        let d = s.delivery
        let elapsed = Int(s.elapsed.components.seconds)
        let clock = String(format: "[%3d:%02d]", elapsed / 60, elapsed % 60)
        let server = s.server.map { "rss \(mb($0.rssBytes)), fds \($0.descriptors), threads \($0.threads), cpu \(String(format: "%.0f", s.cpuShare * 100)) %" } ?? "gone"
        return "\(clock) server \(server) | participants \(s.participants), packets \(d.videoReceived + d.audioReceived), errors \(s.errors) | delivered video \(percent(share(d.videoReceived, of: d.videoExpected))) " +
            "audio \(percent(share(d.audioReceived, of: d.audioExpected))) (worst subscriber \(percent(s.worstSubscriberDelivery))) | " +
            "frames whole \(percent(share(d.framesEmitted, of: d.framesEmitted + d.framesDropped))) | " +
            "decoded \(d.decoded) (\(d.decodeBreaks) breaks, \(d.unreadable) unreadable) | nacks \(d.nacksSent) plis \(d.plisSent)"
    }

    private func summary(_ result: Result, warm: ProcessStats?, end: ProcessStats?, afterWarmUp d: SoakTotals) -> String {
        var lines = ["soak: \(result.passed ? "PASSED" : "FAILED") after \(result.samples.last.map { "\($0.elapsed)" } ?? "0 s")"]
        if let warm, let end {
            lines.append("  server after warm-up → end: rss \(Self.mb(warm.rssBytes)) → \(Self.mb(end.rssBytes)), fds \(warm.descriptors) → \(end.descriptors), " +
                         "threads \(warm.threads) → \(end.threads), cpu time \(String(format: "%.1f", end.cpuSeconds)) s")
        }
        lines.append("  after warm-up: delivered \(Self.percent(Self.share(d.videoReceived + d.audioReceived, of: d.videoExpected + d.audioExpected))) " +
                     "(video \(Self.percent(Self.share(d.videoReceived, of: d.videoExpected))) of \(d.videoExpected), " +
                     "audio \(Self.percent(Self.share(d.audioReceived, of: d.audioExpected))) of \(d.audioExpected)); " +
                     "frames whole and in order \(Self.percent(Self.share(d.framesEmitted, of: d.framesEmitted + d.framesDropped))) of \(d.framesEmitted + d.framesDropped); " +
                     "decoded \(d.decoded) with \(d.decodeBreaks) breaks, \(d.unreadable) unreadable")
        lines.append("  events: " + events.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for failure in result.failures { lines.append("  FAILURE: \(failure)") }
        return lines.joined(separator: "\n")
    }
}
