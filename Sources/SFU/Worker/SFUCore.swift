import RTCNet
import RTCWire
import Synchronization

/// Everything the SFU owns, on the I/O thread: routers, transports, producers, consumers by id.
/// `SFUWorker` posts control calls here; tests drive it directly with their own sinks.
/// Not thread-safe: I/O thread only (hence `@unchecked Sendable`, to be captured by posted work).
// @unchecked Sendable: routers, transports, producers and consumers are touched only on the worker's I/O thread (control calls are posted there); the live counts read elsewhere are Atomics.
final class SFUCore: @unchecked Sendable {
    let configuration: SFUConfiguration
    var emit: (SFUEvent) -> Void
    let metrics = SFUMetricsRecorder()
    /// `forwardingLatency` when `takeForwardingLatency` was last called (benchmarks).
    var latencyTaken = LogHistogram()

    private(set) var routers: [RouterID: Router] = [:]
    private(set) var transports: [TransportID: MediaTransport] = [:]
    private(set) var producers: [ProducerID: Producer] = [:]
    private(set) var consumers: [ConsumerID: Consumer] = [:]
    /// `routers.count` and `transports.count` for other threads, updated as they change (never
    /// per packet): placement reads them between the once-a-second metrics.
    let liveRouters = Atomic<Int>(0)
    let liveTransports = Atomic<Int>(0)
    /// Buffers for the packets every transport's pacer holds back (`TransportPacer`).
    let pacedPackets = PacedPacketPool()

    init(configuration: SFUConfiguration, emit: @escaping (SFUEvent) -> Void = { _ in }) {
        self.configuration = configuration
        self.emit = emit
    }

    // MARK: - Routers

    func createRouter(_ id: RouterID, now: Int64) throws(SFUError) {
        guard routers[id] == nil else { throw .duplicateID(id.rawValue) }
        routers[id] = Router(id: id, configuration: configuration, metrics: metrics, now: now, pacedPackets: pacedPackets) { [weak self] event in
            self?.emit(event)
        }
        liveRouters.store(routers.count, ordering: .relaxed)
    }

    func closeRouter(_ id: RouterID) {
        guard let router = routers[id] else { return }
        for transport in router.transports { closeTransport(transport.id, reason: .routerClosed) }
        routers[id] = nil
        liveRouters.store(routers.count, ordering: .relaxed)
    }

    // MARK: - Transports

    /// Registers a transport whose packets go to `sink`.
    @discardableResult
    func createTransport(_ id: TransportID, router routerID: RouterID, participant: ParticipantID,
                         sink: PacketSink, now: Int64) throws(SFUError) -> MediaTransport {
        guard transports[id] == nil else { throw .duplicateID(id.rawValue) }
        guard let router = routers[routerID] else { throw .routerNotFound(routerID) }
        let transport = MediaTransport(id: id, participant: participant, router: router, sink: sink)
        transports[id] = transport
        liveTransports.store(transports.count, ordering: .relaxed)
        router.add(transport, now: now)
        return transport
    }

    /// Closes a transport with its producers and consumers (each reported with `reason`,
    /// except when the server closed the transport itself).
    func closeTransport(_ id: TransportID, reason: SFUCloseReason? = nil) {
        guard let transport = transports[id] else { return }
        let objectReason = reason ?? .transportClosed
        for producer in transport.producers { closeProducer(producer.id, reason: objectReason) }
        for consumer in transport.consumers { closeConsumer(consumer.id, reason: objectReason) }
        transport.markClosed()
        metrics.retire(transport.counters)
        transport.router.remove(transport)
        transports[id] = nil
        liveTransports.store(transports.count, ordering: .relaxed)
        transport.peer?.close()
        transport.onClose?()
        transport.onClose = nil
    }

    // MARK: - Producers

    func produce(_ id: ProducerID, transport transportID: TransportID, kind: MediaKind,
                 parameters: RTPParameters, muted: Bool) throws(SFUError) {
        guard producers[id] == nil else { throw .duplicateID(id.rawValue) }
        guard let transport = transports[transportID] else { throw .transportNotFound(transportID) }
        let producer = try Producer(id: id, participant: transport.participant, kind: kind, transport: transport,
                                    parameters: parameters, muted: muted)
        try transport.add(producer)
        transport.router.add(producer)
        producers[id] = producer
    }

    /// Closes a producer and its consumers (reported as `producerClosed`). `reason` reports the
    /// producer itself when the SFU, not the server, closed it.
    func closeProducer(_ id: ProducerID, reason: SFUCloseReason? = nil) {
        guard let producer = producers[id] else { return }
        for consumer in producer.close() { closeConsumer(consumer.id, reason: .producerClosed) }
        producer.transport.remove(producer)
        producer.transport.router.remove(producer)
        producers[id] = nil
        if let reason { emit(.producerClosed(id, reason: reason)) }
    }

    func setProducerMuted(_ id: ProducerID, muted: Bool, now: Int64) throws(SFUError) {
        guard let producer = producers[id] else { throw .producerNotFound(id) }
        guard producer.muted != muted else { return }
        producer.muted = muted
        if !muted {
            // Subscribers restart on a key frame; their numbering continues without a gap.
            for consumer in producer.consumers { consumer.sequenceNumbers.requestSync() }
            for layer in producer.streams.indices { producer.requestKeyFrame(layer: layer, now: now) }
        }
    }

    // MARK: - Consumers

    func consume(_ id: ConsumerID, transport transportID: TransportID, producer producerID: ProducerID,
                 parameters: RTPParameters, preferredLayer: String?, paused: Bool, now: Int64) throws(SFUError) -> ConsumerInfo {
        guard consumers[id] == nil else { throw .duplicateID(id.rawValue) }
        guard let transport = transports[transportID] else { throw .transportNotFound(transportID) }
        guard let producer = producers[producerID] else { throw .producerNotFound(producerID) }
        guard transport.router === producer.transport.router else { throw .routerMismatch }
        var ssrc = parameters.encodings.first?.ssrc ?? 0
        if ssrc == 0 {
            repeat { ssrc = .random(in: 1 ... .max) } while !transport.isFree(ssrc: ssrc)
        }
        let consumer: Consumer
        if producer.isSimulcast {
            var preferred = producer.streams.count - 1
            if let name = preferredLayer {
                guard let index = producer.layerIndex(named: name) else { throw .unknownLayer(name) }
                preferred = index
            }
            let simulcast = try SimulcastConsumer(id: id, participant: transport.participant, transport: transport,
                                                  producer: producer, parameters: parameters, ssrc: ssrc,
                                                  paused: paused, preferredLayer: preferred)
            consumer = simulcast
            try transport.add(consumer)
            simulcast.setTarget(preferred, cause: .requested, now: now)
        } else if producer.isScalable {
            var preferred = SpatialLayerMeter.maxLayers - 1  // the best the stream has
            if let name = preferredLayer {
                guard let index = producer.spatialLayerIndex(named: name) else { throw .unknownLayer(name) }
                preferred = index
            }
            let svc = try SVCConsumer(id: id, participant: transport.participant, transport: transport, producer: producer,
                                         parameters: parameters, ssrc: ssrc, paused: paused, preferredLayer: preferred)
            consumer = svc
            try transport.add(consumer)
            svc.setTarget(preferred, cause: .requested, now: now, dropCurrent: false)
        } else {
            consumer = try SimpleConsumer(id: id, participant: transport.participant, transport: transport,
                                          producer: producer, parameters: parameters, ssrc: ssrc, paused: paused)
            try transport.add(consumer)
            if !paused { consumer.requestKeyFrame(now: now) }
        }
        producer.addConsumer(consumer)
        consumers[id] = consumer
        return ConsumerInfo(ssrc: ssrc, payloadType: consumer.payloadType,
                            layers: producer.isSimulcast ? producer.streams.reversed().map(\.layerName)
                                : producer.isScalable ? producer.spatialLayerNames : [])
    }

    func closeConsumer(_ id: ConsumerID, reason: SFUCloseReason? = nil) {
        guard let consumer = consumers[id] else { return }
        consumer.closed = true
        consumer.producer.removeConsumer(consumer)
        consumer.transport.remove(consumer)
        consumers[id] = nil
        if let reason { emit(.consumerClosed(id, reason: reason)) }
    }

    func setConsumerPaused(_ id: ConsumerID, paused: Bool, now: Int64) throws(SFUError) {
        guard let consumer = consumers[id] else { throw .consumerNotFound(id) }
        consumer.setPaused(paused, now: now)
    }

    /// Sets a simulcast consumer's preferred layer by description (nil: the best layer).
    func setPreferredLayer(_ id: ConsumerID, layer: String?, now: Int64) throws(SFUError) {
        guard let consumer = consumers[id] else { throw .consumerNotFound(id) }
        // A single stream takes any layer as its best (docs/protocol.md): nothing to choose.
        guard let layered = consumer as? any LayeredConsumer, !(consumer is SimpleConsumer) else { return }
        let producer = consumer.producer
        let svc = producer.isScalable
        var index = svc ? SpatialLayerMeter.maxLayers - 1 : producer.streams.count - 1
        if let layer {
            guard let found = svc ? producer.spatialLayerIndex(named: layer) : producer.layerIndex(named: layer) else {
                throw .unknownLayer(layer)
            }
            index = found
        }
        layered.setPreferred(index)
        layered.setTarget(index, cause: .requested, now: now, dropCurrent: false)
        consumer.transport.allocateLayers(now: now, cause: .bandwidth)
    }

    func requestKeyFrame(_ id: ConsumerID, now: Int64) throws(SFUError) {
        guard let consumer = consumers[id] else { throw .consumerNotFound(id) }
        consumer.requestKeyFrame(now: now)
    }

    // MARK: - Timers

    /// When `tickIfDue` runs the timers next, µs.
    private var nextTick: Int64 = .min

    /// Runs the timers when `configuration.tickInterval` has passed (called on every port tick);
    /// returns whether they ran.
    @discardableResult
    func tickIfDue(now: Int64) -> Bool {
        guard now >= nextTick else { return false }
        nextTick = now + SFUConfiguration.micros(configuration.tickInterval)
        tick(now: now)
        return true
    }

    /// Drains the pacers (every port tick: 10 ms), then runs the timers if due.
    func portTick(now: Int64) {
        drainPacers(now: now)
        tickIfDue(now: now)
    }

    /// Sends what the transports' pacers allow now.
    func drainPacers(now: Int64) {
        for router in routers.values { router.drainPacers(now: now) }
    }

    func tick(now: Int64) {
        for router in routers.values { router.tick(now: now) }
        metrics.publishIfDue(now: now, core: self)
    }
}

/// What the server needs to describe a new consumer in its offer.
public struct ConsumerInfo: Hashable, Sendable {
    /// The SSRC the subscriber will see (`a=ssrc`).
    public var ssrc: UInt32
    /// The payload type used.
    public var payloadType: UInt8
    /// The producer's layer names, best first (empty for a single stream).
    public var layers: [String]
}
