/// One channel's media: its transports, producers and consumers, its active-speaker detector and
/// its participants' quality monitors. I/O thread only.
final class Router {
    let id: RouterID
    let configuration: SFUConfiguration
    /// The intervals every transport checks on every tick, in µs, converted once: reading them
    /// from `configuration` copied the struct out and split a `Duration` (a 128-bit division)
    /// for each transport 50 times a second.
    let reportInterval: Int64
    let transportFeedbackInterval: Int64
    /// Delivers events to the worker's listener.
    let emit: (SFUEvent) -> Void
    /// The worker's metrics, where reports and forwarding record their distributions.
    let metrics: SFUMetricsRecorder

    private(set) var transports: [MediaTransport] = []
    private(set) var producers: [Producer] = []
    private var speakers: ActiveSpeakerDetector
    private var lastSpeakerTime: Int64
    private var quality: [ParticipantID: ParticipantQualityMonitor] = [:]
    private var lastQualityTime: Int64
    private var lastNeededLayersTime: Int64 = .min
    /// User data between the transports' data channels.
    var data = DataFanOut()
    /// The worker's buffers for packets the transports' pacers hold back.
    let pacedPackets: PacedPacketPool
    /// The transports with packets waiting in their pacer, drained on every port tick.
    private var backlogged: [MediaTransport] = []

    init(id: RouterID, configuration: SFUConfiguration, metrics: SFUMetricsRecorder, now: Int64,
         pacedPackets: PacedPacketPool = PacedPacketPool(), emit: @escaping (SFUEvent) -> Void) {
        self.pacedPackets = pacedPackets
        backlogged.reserveCapacity(64)
        lastSpeakerTime = now
        lastQualityTime = now
        self.id = id
        self.configuration = configuration
        reportInterval = configuration.reportInterval
        transportFeedbackInterval = configuration.transportFeedbackInterval
        self.metrics = metrics
        self.emit = emit
        speakers = ActiveSpeakerDetector(configuration: configuration.speakers)
    }

    // MARK: - Membership

    func add(_ transport: MediaTransport, now: Int64) {
        transports.append(transport)
        if quality[transport.participant] == nil {
            quality[transport.participant] = ParticipantQualityMonitor(participant: transport.participant, now: now)
        }
    }

    func remove(_ transport: MediaTransport) {
        transports.removeAll { $0 === transport }
        backlogged.removeAll { $0 === transport }
        transport.releasePacer()
        if !transports.contains(where: { $0.participant == transport.participant }) { quality[transport.participant] = nil }
    }

    func add(_ producer: Producer) { producers.append(producer) }

    func remove(_ producer: Producer) { producers.removeAll { $0 === producer } }

    /// The mean RTT of `participant`'s consumers, µs, if measured.
    func roundTripTime(of participant: ParticipantID) -> Int64? {
        var sum: Int64 = 0, count: Int64 = 0
        for transport in transports where transport.participant == participant {
            for consumer in transport.consumers {
                if let rtt = consumer.report.roundTripTime { sum += rtt; count += 1 }
            }
        }
        return count > 0 ? sum / count : nil
    }

    // MARK: - Timers

    /// `transport` has packets waiting in its pacer: drain it on every port tick until it is empty.
    func didBacklog(_ transport: MediaTransport) {
        backlogged.append(transport)
    }

    /// Sends what each backlogged transport's pacer allows now (every port tick, 10 ms).
    func drainPacers(now: Int64) {
        var index = 0
        while index < backlogged.count {
            if backlogged[index].drainPacer(now: now) {
                index += 1
            } else {
                backlogged.swapAt(index, backlogged.count - 1)
                backlogged.removeLast()
            }
        }
    }

    func tick(now: Int64) {
        // Only the transports whose timers have work now (a subscriber's about twice a second);
        // by index, so skipping one reads its deadline without retaining it. A tick that closed a
        // transport would shorten the list: the bound is read again each time.
        var index = 0
        while index < transports.count {
            if now >= transports[index].nextTick { transports[index].tick(now: now) }
            index += 1
        }
        if now - lastSpeakerTime >= configuration.activeSpeakerInterval {
            updateSpeakers(elapsed: now - lastSpeakerTime)
            lastSpeakerTime = now
        }
        if now - lastQualityTime >= configuration.qualityInterval {
            lastQualityTime = now
            reportQuality(now: now)
        }
        if lastNeededLayersTime == .min || now - lastNeededLayersTime >= Self.neededLayersInterval {
            lastNeededLayersTime = now
            reportNeededLayers(now: now)
        }
    }

    /// How often dynacast looks at what each layered producer's subscribers need, µs: a layer a
    /// subscriber starts needing is told within this (plus the signaling hop).
    static let neededLayersInterval: Int64 = 100_000

    /// Dynacast: tells which layers of each layered producer anyone needs, when that changed.
    func reportNeededLayers(now: Int64) {
        for producer in producers where !producer.closed {
            guard let needed = producer.neededLayers(now: now), needed != producer.reportedNeededLayers else { continue }
            producer.toldNeeded(needed, now: now)
            emit(.layersNeeded(id, producer.id, producer.layerNames(needed)))
        }
    }

    /// Folds every audio producer's levels since the last interval into the detector.
    func updateSpeakers(elapsed: Int64) {
        var inputs: [ActiveSpeakerDetector.Input] = []
        for producer in producers where producer.kind == .audio && !producer.closed {
            let mean = producer.audioLevels.takeMean()
            inputs.append(.init(participant: producer.participant, producer: producer.id, meanAmplitude: producer.muted ? 0 : mean))
        }
        if let snapshot = speakers.update(inputs, elapsed: elapsed) { emit(.activeSpeakers(id, snapshot)) }
    }

    private func reportQuality(now: Int64) {
        let unix = MediaClock.unixMilliseconds()
        for participant in quality.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            let own = transports.filter { $0.participant == participant }
            guard !own.isEmpty, var monitor = quality[participant] else { continue }
            let (report, change) = monitor.report(transports: own, now: now, unixMilliseconds: unix)
            quality[participant] = monitor
            emit(.qualityReport(id, report))
            if let change { emit(.connectionQualityChanged(id, participant, change.level, previous: change.previous)) }
        }
    }
}
