import Foundation
import RTCNet
import RTCTransport
import SRTCProtocol
import Synchronization

/// One load test: sets the scenario up on a target (everyone joins, publishers publish,
/// everyone subscribes, every stream's first packet arrives), measures windows, and tears down.
///
/// ```swift
/// let run = try await LoadRun(scenario: LoadScenario(publishers: 1, subscribers: 50), target: target)
/// try await run.setUp()
/// let report = await run.measure(seconds: 10) { print($0) }
/// await run.tearDown()
/// ```
// @unchecked Sendable: `participants` and `rooms` are written by setUp() before the paced tasks start and by tearDown() after them; the other `var`s by the caller's task only.
package final class LoadRun: @unchecked Sendable {
    /// One participant: its signaling session and its media clients.
    // @unchecked Sendable: a participant is written by the one task of a paced phase that handles it; phases run one after the other (each task group awaited).
    final class Participant: @unchecked Sendable {
        let room: String
        let uid: String
        let publishes: Bool
        var session: (any LoadSession)?
        var publisher: LoadPublisher?
        var publication: LoadPublication?
        var subscriber: LoadSubscriber?

        init(room: String, uid: String, publishes: Bool) {
            self.room = room
            self.uid = uid
            self.publishes = publishes
        }
    }

    /// The scenario as set up so far (`addRooms` raises its room count).
    package private(set) var scenario: LoadScenario
    package let target: any LoadTarget
    private let media: LoadMedia
    private let certificate: DTLSCertificate
    private let pacer: LoadPacer
    private let failures = Mutex<[String]>([])
    private var participants: [Participant] = []
    private var rooms: [String] = []
    private let runID = String(UInt32.random(in: 0 ... .max), radix: 36)
    package private(set) var setupSeconds = 0.0
    /// What each subscriber socket received in the last measured window (the same datagrams a
    /// bare `sendmmsg` loop can send for comparison).
    package private(set) var lastWindowDestinations: [LoadDestination] = []

    /// Subscribers keep every payload (interop checks that decode; never for load).
    private let capture: Bool
    /// Subscribers SRTP-decrypt one RTP packet in this many and count the rest from their clear
    /// headers (`LoadSubscriber`), so the generator costs less than the server it loads.
    private let decryptionInterval: Int
    /// Subscribers are counting-only (`LoadSubscriber(countingOnly:)`).
    package let countingOnly: Bool
    /// The threads that serve every client transport's socket (`sharedReceiveThreads`); nil: a
    /// thread per transport.
    package let sharedLoops: SharedUDPLoops?
    /// Counts and drops in the kernel the RTP of every counting-only subscriber but the probes,
    /// once its streams started (`kernelCounting`); nil: every subscriber reads its socket.
    package let kernelCounter: KernelPacketCounter?
    /// One counting-only subscriber in this many keeps reading its socket (a probe: its packets'
    /// end-to-end delays are the run's e2e figures) when the others are kernel-counted.
    package let probeEvery: Int
    /// The kernel-counted subscribers, by participant: their port and the publisher streams they
    /// receive (whose sent counters are what they expect). Written by the caller's task in setUp.
    private var kernelCounted: [String: (port: UInt16, sources: [LoadStreamSender])] = [:]

    /// The address subscribers' sockets bind (nil: the target's `bindAddress`, as publishers'):
    /// the network lab tells the subscriber apart by it, to shape its path alone.
    private let subscriberBindAddress: String?

    /// Publishers send media (otherwise everyone joins, publishes and subscribes, and only the
    /// transports' timers, consent checks and reports run: a joined participant's idle cost).
    package let sendsMedia: Bool

    /// - Parameters:
    ///   - capture: subscribers keep every payload, for checks that decode what arrived.
    ///   - sendMedia: false to measure idle participants.
    ///   - decryptionInterval: subscribers decrypt one RTP packet in this many (1: all).
    ///   - sharedReceiveThreads: when above 0, every publisher's and subscriber's transport is
    ///     served by this many shared I/O threads (`SharedUDPLoops`) instead of a thread each, so
    ///     hundreds of participants cost a few threads (the capacity rows of `make bench-sfu`).
    ///   - countingOnly: subscribers only count (`LoadSubscriber(countingOnly:)`, the capacity
    ///     search of `make bench-sfu`); their sockets need shared threads, one per core unless
    ///     `sharedReceiveThreads` says how many.
    ///   - kernelCounting: with `countingOnly` and media, once a subscriber's streams started its
    ///     RTP is counted and dropped by nftables at this hook (`KernelPacketCounter`) instead of
    ///     read, except one subscriber in `probeEvery`, which keeps reading for the e2e delays.
    ///   - subscriberBindAddress: subscribers bind this address instead of the target's.
    /// - Throws: `LoadError.invalidScenario` when the scenario is out of bounds; `LoadError.setup`
    ///   when the kernel counter cannot be made.
    package init(scenario: LoadScenario, target: any LoadTarget, capture: Bool = false, sendMedia: Bool = true,
                 decryptionInterval: Int = 1, sharedReceiveThreads: Int = 0, countingOnly: Bool = false,
                 kernelCounting: KernelPacketCounter.Hook? = nil, probeEvery: Int = 25,
                 subscriberBindAddress: String? = nil) async throws {
        try scenario.validate()
        self.subscriberBindAddress = subscriberBindAddress
        kernelCounter = try kernelCounting.flatMap { countingOnly && !capture && sendMedia ? try KernelPacketCounter(hook: $0) : nil }
        self.probeEvery = max(1, probeEvery)
        let threads = countingOnly && sharedReceiveThreads <= 0 ? ProcessInfo.processInfo.activeProcessorCount : sharedReceiveThreads
        sharedLoops = try threads > 0 ? SharedUDPLoops(threadCount: threads, name: "srtc-load-io") : nil
        self.capture = capture
        self.countingOnly = countingOnly && !capture
        self.decryptionInterval = decryptionInterval
        sendsMedia = sendMedia
        // Counting-only runs: frames handed over once a millisecond (`LoadPacer.granularity`).
        pacer = LoadPacer(sendsMedia: sendMedia, granularity: self.countingOnly ? 1_000 : 0)
        self.scenario = scenario
        self.target = target
        media = try await LoadMedia.shared()
        if let codec = scenario.scalableCodec {
            let media = self.media
            _ = try await Thread.blockingRun { Result { try media.scalable(codec) } }.get()   // encoded before anyone joins
        }
        certificate = try DTLSCertificate(commonName: "srtc-load")
    }

    // MARK: - Setup

    /// Joins everyone, publishes, subscribes, and waits (up to `timeout`) for every stream's
    /// first packet. Participants that fail are reported in `LoadReport.failures`.
    /// - Throws: when nobody could publish.
    package func setUp(timeout: Duration = .seconds(30), log: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let started = Date()
        try await add(rooms: scenario.rooms, timeout: timeout, log: log)
        setupSeconds = Date().timeIntervalSince(started)
        log("set up in \(String(format: "%.1f", setupSeconds)) s")
    }

    /// Sets up `count` more rooms of the scenario's shape beside those already running, as
    /// `setUp` did its rooms (the capacity search of `make bench-sfu` raises the load this way,
    /// without tearing down what runs). `setupSeconds` becomes this step's set-up time.
    /// - Throws: `LoadError.invalidScenario` past the scenario's bounds; when nobody could publish.
    package func addRooms(_ count: Int, timeout: Duration = .seconds(30), log: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        var grown = scenario
        grown.rooms += count
        try grown.validate()
        let started = Date()
        scenario = grown
        try await add(rooms: count, timeout: timeout, log: log)
        setupSeconds = Date().timeIntervalSince(started)
        log("\(count) room(s) added in \(String(format: "%.1f", setupSeconds)) s")
    }

    private func add(rooms count: Int, timeout: Duration, log: @escaping @Sendable (String) -> Void) async throws {
        let added = (rooms.count ..< rooms.count + count).map { "load-\(runID)-\($0)" }
        try await target.prepare(rooms: added, publishersPerRoom: scenario.publishers)
        rooms += added
        let (publishing, watching) = (scenario.publishers, scenario.subscribers)
        let joining = added.flatMap { room in
            (0..<publishing).map { Participant(room: room, uid: "\(room)-p\($0)", publishes: true) }
                + (0..<watching).map { Participant(room: room, uid: "\(room)-s\($0)", publishes: false) }
        }
        participants += joining
        let publishers = joining.filter(\.publishes)
        log("publishing: \(publishers.count) participant(s) in \(added.count) room(s)")
        await paced(publishers) { [self] participant in try await publish(participant) }
        guard publishers.contains(where: { $0.publisher != nil }) else {
            throw LoadError.setup("no publisher could publish: \(failures.withLock { $0.first ?? "" })")
        }
        await waitUntil(timeout: timeout) { publishers.allSatisfy { $0.publisher?.connected.load(ordering: .acquiring) ?? true } }
        for participant in publishers where participant.publisher?.connected.load(ordering: .acquiring) == false {
            fail("\(participant.uid): publish transport did not connect")
        }
        pacer.start()
        let subscribing = joining.filter { !$0.publishes || scenario.publishers > 1 }
        log("subscribing: \(subscribing.count) participant(s)")
        await paced(subscribing) { [self] participant in try await subscribe(participant) }
        if sendsMedia {
            await waitUntil(timeout: timeout) { [self] in await allStreamsStarted(joining) }
            for (participant, snapshot) in await subscriberSnapshots(of: joining, resetLatency: true) {
                let missing = expectedStreams(of: participant) - snapshot.streams.filter { $0.firstPacketDelay != nil }.count
                if missing > 0 { fail("\(participant.uid): \(missing) stream(s) never started") }
            }
            await countInKernel(joining)
        } else {
            let subscribers = joining.compactMap(\.subscriber)
            await waitUntil(timeout: timeout) { subscribers.allSatisfy { $0.connected.load(ordering: .acquiring) } }
            for participant in joining where participant.subscriber?.connected.load(ordering: .acquiring) == false {
                fail("\(participant.uid): subscribe transport did not connect")
            }
        }
    }

    /// Hands the RTP of `list`'s subscribers to the kernel counter, all but the probes (one
    /// subscriber in `probeEvery`, counted over the whole run so each step of a search keeps some).
    private func countInKernel(_ list: [Participant]) async {
        guard let kernelCounter else { return }
        let ordinals = Dictionary(uniqueKeysWithValues: participants.filter { $0.subscriber != nil }.enumerated().map { ($1.uid, $0) })
        var ports: [UInt16] = []
        for participant in list {
            guard let subscriber = participant.subscriber, let port = subscriber.localAddress?.port,
                  let ordinal = ordinals[participant.uid], ordinal % probeEvery != 0 else { continue }
            kernelCounted[participant.uid] = (port, await subscriber.sources())
            ports.append(port)
        }
        do { try kernelCounter.add(ports: ports) } catch { fail("kernel counting: \(error)") }
    }

    private func publish(_ participant: Participant) async throws {
        let session = try await target.join(room: participant.room, uid: participant.uid)
        participant.session = session
        let offer = LoadPublisher.makeOffer(certificate: certificate, simulcast: scenario.simulcast,
                                            audio: scenario.audio, video: scenario.video, scalable: scenario.scalableCodec)
        let (answer, publication) = try await session.publish(offer)
        let publisher = LoadPublisher()
        try publisher.connect(offer: offer, answer: answer, media: media, certificate: certificate, bindAddress: target.bindAddress,
                              sharedLoops: sharedLoops)
        participant.publisher = publisher
        participant.publication = publication
        pacer.add(publisher)
    }

    private func subscribe(_ participant: Participant) async throws {
        let session: any LoadSession
        if let existing = participant.session {
            session = existing
        } else {
            session = try await target.join(room: participant.room, uid: participant.uid)
            participant.session = session
        }
        let sources = participants.filter { $0.room == participant.room && $0 !== participant && $0.publication != nil }
        let subscriber = LoadSubscriber(certificate: certificate, bindAddress: subscriberBindAddress ?? target.bindAddress, capture: capture,
                                        decryptionInterval: decryptionInterval, sharedLoops: sharedLoops, countingOnly: countingOnly)
        participant.subscriber = subscriber
        let layer = scenario.simulcast ? scenario.layer : nil
        let small = layer == TrackDescName.cameraSmall
        try await session.subscribe(to: sources.compactMap(\.publication), layer: layer, subscriber: subscriber) { track in
            guard let owner = sources.first(where: { $0.publication?.track(key: track.key) != nil })?.publisher else { return nil }
            return owner.stream(kind: track.kind, small: small)
        }
        pacer.add(subscriber)
    }

    /// Runs `body` for every participant, at most `joinRate` starts a second and 16 at a time;
    /// failures are recorded, not thrown.
    private func paced(_ list: [Participant], _ body: @escaping @Sendable (Participant) async throws -> Void) async {
        let interval = 1.0 / scenario.joinRate
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for (index, participant) in list.enumerated() {
                if running >= 16 { await group.next(); running -= 1 }
                if index > 0 { try? await Task.sleep(for: .milliseconds(Int(interval * 1000))) }
                running += 1
                group.addTask { [self] in
                    do { try await body(participant) } catch { fail("\(participant.uid): \(error)") }
                }
            }
        }
    }

    // MARK: - Measuring

    /// Measures `seconds`, calling `progress` every second with a one-line summary.
    ///
    /// The window is the time between its two edges, and the packets it reports as received
    /// (`packetsReceived`, `receiveRate`) are those the subscribers counted between them, read
    /// from their atomic counters at the edges. The per-stream figures (loss, expected, NACKs,
    /// delays) come from snapshots taken on each subscriber's I/O thread just before the first
    /// edge and just after the second: on an overloaded machine gathering those snapshots takes
    /// seconds (each waits its turn on a busy thread), and counting the packets of that time
    /// against the window's length reported more delivered than was offered.
    /// - Parameter atEdge: called at both edges, on the caller's task, with no `await` between
    ///   it and the counter reading (the benchmark reads CPU clocks there); `true` at the end.
    package func measure(seconds: Double, progress: (@Sendable (String) -> Void)? = nil,
                         atEdge: (Bool) -> Void = { _ in }) async -> LoadReport {
        let start = await counters(resetLatency: true)
        let firstCount = packetsCounted()
        atEdge(false)
        let began = ContinuousClock.now
        var previous = start
        // One progress line per whole second; the window ends exactly `seconds` after it began.
        for second in 1...max(1, Int(seconds.rounded(.up))) {
            try? await Task.sleep(until: began + .milliseconds(Int(min(seconds, Double(second)) * 1000)), clock: .continuous)
            guard let progress, Double(second) <= seconds else { continue }
            let now = await counters(resetLatency: false)
            progress(LoadCounters.progressLine(second: Double(second), scenario: scenario, target: target.name,
                                               previous: previous, current: now))
            previous = now
        }
        let lastCount = packetsCounted()
        atEdge(true)
        let elapsed = ContinuousClock.now - began
        let end = await counters(resetLatency: false)
        let received = end.received(since: start)
        lastWindowDestinations = participants.compactMap { participant in
            guard let address = participant.subscriber?.localAddress, let counts = received[participant.uid] else { return nil }
            return LoadDestination(address: address, packets: counts.packets, bytes: counts.bytes)
        }
        let windowSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // A transport that failed after its streams started (setup saw them) counts nothing more:
        // said here, or a window of it reads as a server that forwarded nothing.
        let down = end.subscribers.values.filter { !$0.connected }.count
        if down > 0 { fail("\(down) of \(end.subscribers.count) subscribe transport(s) not connected as the window ended") }
        var report = end.report(since: start, seconds: windowSeconds, run: self)
        report.packetsReceived = lastCount - firstCount
        report.receiveRate = (Double(report.packetsReceived) / max(0.001, windowSeconds)).rounded()
        return report
    }

    /// RTP packets every subscriber counted so far (their atomics: no hop to their threads), and
    /// those the kernel counted for them.
    private func packetsCounted() -> Int {
        participants.reduce(0) { $0 + ($1.subscriber?.packetsReceived.load(ordering: .relaxed) ?? 0) }
            + kernelReading().values.reduce(0) { $0 + $1.packets }
    }

    /// The kernel-counted subscribers' counters now, each with what its publishers have sent on
    /// the streams it receives, read together (empty without kernel counting). Blocks for one
    /// `nft` command.
    private func kernelReading() -> [String: LoadCounters.KernelCount] {
        guard let kernelCounter, !kernelCounted.isEmpty else { return [:] }
        let counts: [UInt16: KernelPacketCounter.Counts]
        do { counts = try kernelCounter.read() } catch {
            fail("kernel counting: \(error)")
            return [:]
        }
        var result: [String: LoadCounters.KernelCount] = [:]
        for (uid, subscriber) in kernelCounted {
            let sent = subscriber.sources.reduce(0) { $0 + $1.packetsSent.load(ordering: .relaxed) }
            let count = counts[subscriber.port] ?? KernelPacketCounter.Counts(packets: 0, bytes: 0)
            result[uid] = LoadCounters.KernelCount(packets: count.packets, bytes: count.bytes, sourceSent: sent)
        }
        return result
    }

    private func counters(resetLatency: Bool) async -> LoadCounters {
        var counters = LoadCounters()
        counters.kernel = kernelReading()
        for participant in participants {
            if let streams = participant.publisher?.streams {
                for stream in streams {
                    counters.sent += stream.packetsSent.load(ordering: .relaxed)
                    counters.publisherNacks += stream.nacksReceived.load(ordering: .relaxed)
                    counters.publisherKeyFrameRequests += stream.keyFrameRequests.load(ordering: .relaxed)
                    counters.retransmissions += stream.retransmissions.load(ordering: .relaxed)
                }
            }
        }
        for (participant, snapshot) in await subscriberSnapshots(of: participants, resetLatency: resetLatency) {
            counters.subscribers[participant.uid] = snapshot
        }
        return counters
    }

    private func subscriberSnapshots(of list: [Participant], resetLatency: Bool) async -> [(Participant, LoadSubscriberSnapshot)] {
        var result: [(Participant, LoadSubscriberSnapshot)] = []
        for participant in list {
            guard let subscriber = participant.subscriber else { continue }
            result.append((participant, await subscriber.snapshot(resetLatency: resetLatency)))
        }
        return result
    }

    private func allStreamsStarted(_ list: [Participant]) async -> Bool {
        for (participant, snapshot) in await subscriberSnapshots(of: list, resetLatency: false) {
            if snapshot.streams.filter({ $0.firstPacketDelay != nil }).count < expectedStreams(of: participant) { return false }
        }
        return true
    }

    /// Streams `participant` should receive: every track of every other publisher of its room.
    private func expectedStreams(of participant: Participant) -> Int {
        participants.filter { $0.room == participant.room && $0 !== participant && $0.publication != nil }
            .reduce(0) { $0 + ($1.publication?.tracks.count ?? 0) }
    }

    /// Every subscribing participant's media client.
    package var subscribers: [LoadSubscriber] { participants.compactMap(\.subscriber) }
    /// Every publishing participant's media client.
    var publishers: [LoadPublisher] { participants.compactMap(\.publisher) }

    var publisherCount: Int { participants.filter { $0.publisher != nil }.count }
    var subscriberCount: Int { participants.filter { $0.subscriber != nil }.count }
    var failureList: [String] { failures.withLock { $0 } }

    private func fail(_ text: String) {
        failures.withLock { $0.append(text) }
    }

    private func waitUntil(timeout: Duration, _ condition: @escaping () async -> Bool) async {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    // MARK: - Teardown

    /// Publishers stop sending (transports stay up); `tearDown` does this too.
    package func stopSending() {
        pacer.stop()
    }

    /// Stops sending, leaves, closes every transport, and lets the target clean up.
    package func tearDown() async {
        pacer.stop()
        // Before the sockets close: their ports may be someone else's next.
        kernelCounter?.remove()
        await withTaskGroup(of: Void.self) { group in
            for participant in participants {
                group.addTask { await participant.session?.leave() }
            }
        }
        for participant in participants {
            participant.publisher?.close()
            participant.subscriber?.close()
        }
        // After every transport closed (each one's close waited for its socket to leave its thread).
        sharedLoops?.shutdown()
        await target.finish()
    }

    /// Sets up, measures `scenario.duration`, tears down.
    package func run(progress: (@Sendable (String) -> Void)? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) async throws -> LoadReport {
        do {
            try await setUp(log: log)
        } catch {
            await tearDown()
            throw error
        }
        let report = await measure(seconds: scenario.duration, progress: progress)
        await tearDown()
        return report
    }
}

/// One subscriber socket and what reached it in a window.
package struct LoadDestination: Sendable {
    package var address: SocketAddress
    package var packets: Int
    /// Bytes of RTP (after SRTP was removed).
    package var bytes: Int
}
