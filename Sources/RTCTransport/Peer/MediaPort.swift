import RTCNet
import RTCWire

/// The server's one UDP port shared by every peer (architecture: "one UDP port for all peers").
/// It owns the socket and the I/O thread, and routes each datagram to its `PeerTransport`:
/// a STUN Binding request by its USERNAME (`localUfrag:remoteUfrag`, so the first check of a new
/// peer, or a check from a peer's new address, finds it), everything else by source address
/// (learned from ICE's selection, or, for a controlling transport, its peer's candidates).
///
/// With `tcpBind` it also accepts ICE-TCP connections (RFC 6544 passive candidates) on the same
/// thread: their RFC 4571-framed packets go through the same routing (see `MediaPort+TCP.swift`).
///
/// **Threading.** All routing, every transport's callbacks and all sending run on the port's I/O
/// thread. `makeTransport`, `execute`, `stop` and `PeerTransport.close` are thread-safe. Sends
/// made while handling a batch are flushed with one `sendmmsg` at the end of the batch (or when
/// the queue fills).
// @unchecked Sendable: routing tables, service and TCP state are touched only on `loop`'s I/O thread; other threads go through `execute`.
public final class MediaPort: @unchecked Sendable {
    /// The bound address (the port the kernel chose when asked for port 0).
    public var localAddress: SocketAddress { loop.socket.localAddress }
    /// The scheduling priority the I/O thread got; nil until it has started (known in closures
    /// passed to `execute`).
    public var ioThreadPriority: IOThreadPriority? { loop.appliedPriority }
    /// Datagrams no transport claimed (I/O thread).
    public private(set) var unroutedCount = 0

    let loop: UDPReceiveLoop
    // I/O thread only.
    private var byUfrag: [String: PeerTransport] = [:]
    private var byAddress: [SocketAddress: PeerTransport] = [:]
    private var addressesOf: [ObjectIdentifier: Set<SocketAddress>] = [:]
    private var service: MediaPortService?
    private var tickHandler: ((ContinuousClock.Instant) -> Void)?
    /// In-process pipes polled on this thread (`attach`).
    private var attachedPipes = 0
    /// ICE-TCP (I/O thread; see `MediaPort+TCP.swift`).
    var tcpListener: TCPSocket?
    var tcpConnections: [ObjectIdentifier: ICETCPConnection] = [:]
    /// The listening ICE-TCP address, when enabled.
    public let tcpAddress: SocketAddress?

    /// Binds the port and starts its I/O thread.
    /// - Parameters:
    ///   - tcpBind: where to accept ICE-TCP connections too (port 0 picks one); `nil` for UDP only.
    ///   - batchSize: datagrams per `recvmmsg`; the send queue holds twice as many.
    ///   - priority: the I/O thread's scheduling priority (`ioThreadPriority` tells what it got).
    ///   - threadName: the I/O thread's name, as `top -H` and `perf -t` show it (15 bytes at most).
    public init(bind address: SocketAddress, tcpBind: SocketAddress? = nil, batchSize: Int = 32,
                priority: IOThreadPriority = .normal, threadName: String = "srtc-media-port") throws(NetError) {
        let socket = try UDPSocket(bind: address)
        let listener = try tcpBind.map { address throws(NetError) in try TCPSocket.listen(on: address) }
        tcpAddress = listener?.localAddress
        loop = try UDPReceiveLoop(socket: socket, batchSize: batchSize, sendQueueCapacity: batchSize * 2,
                                  tickInterval: .milliseconds(10))
        loop.onDatagram = { [weak self] bytes, source in self?.route(bytes, from: source) }
        loop.onTick = { [weak self] now in self?.tick(now: now) }
        // An idle worker's 100 wake-ups a second cost about 0.65 % of a core each (measured with
        // `SCHED_FIFO`, docs/benchmarks.md); with no transport there is nothing to time that often.
        loop.isIdle = { [weak self] in self?.hasNothingToTime ?? true }
        loop.start(name: threadName, priority: priority)
        if let listener { loop.execute { [self] in startAccepting(listener) } }
    }

    deinit { loop.stop() }

    /// Creates a transport on this port and registers its local ufrag (which must be unique on the
    /// port). The transport starts routing as soon as the I/O thread has registered it.
    /// - Parameter delegate: set before the transport can see any packet.
    public func makeTransport(_ parameters: PeerTransportParameters,
                              delegate: PeerTransportDelegate?) throws(DTLSError) -> PeerTransport {
        let transport = try PeerTransport(parameters: parameters, io: loop)
        transport.delegate = delegate
        transport.host = self
        loop.execute { [self] in
            byUfrag[parameters.localICE.ufrag] = transport
            if case .controlling = parameters.iceRole {
                // A controlling transport on this port (a node relaying another node's channel)
                // gets its checks' responses from the peer's candidates before any selection.
                for candidate in parameters.remoteCandidates where byAddress[candidate.address] == nil {
                    byAddress[candidate.address] = transport
                    addressesOf[ObjectIdentifier(transport), default: []].insert(candidate.address)
                }
            }
            transport.start(now: .now)
        }
        return transport
    }

    /// Runs `work` on the I/O thread. Thread-safe.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        loop.execute(work)
    }

    /// Hands `probe` datagrams (first byte 4–15) to `service` and ticks it with the transports;
    /// `nil` drops them again. Thread-safe; the port holds the service strongly.
    public func setService(_ service: MediaPortService?) {
        loop.execute { [self] in self.service = service }
    }

    /// Calls `handler` on the I/O thread about every 10 ms, after the transports' timers, or stops
    /// with nil. The SFU runs its periodic work here: a timer thread of its own would wake the I/O
    /// thread through the pipe on every tick (two extra threads and a context switch each time).
    /// Thread-safe; the port holds the handler strongly.
    public func setTickHandler(_ handler: (@Sendable (ContinuousClock.Instant) -> Void)?) {
        loop.execute { [self] in tickHandler = handler }
    }

    /// Polls `pipe`'s wake-up beside the socket and calls `onPackets` on the I/O thread whenever
    /// packets wait in it (it drains them); what they made go out leaves with the batch. The
    /// consuming end of an in-process pipe from another worker. I/O thread only; `detach` first
    /// when the consumer goes.
    public func attach(_ pipe: PacketPipe, onPackets: @escaping () -> Void) {
        loop.watch(pipe.readFD, read: true, write: false) { _ in onPackets() }
        attachedPipes += 1
    }

    /// Stops polling `pipe`. I/O thread only.
    public func detach(_ pipe: PacketPipe) {
        loop.unwatch(pipe.readFD)
        attachedPipes -= 1
    }

    /// Queues a datagram written by `write` into a send slot (flushed with the batch). I/O thread
    /// only; returns `false` when the kernel's queue or ours refused it.
    @discardableResult
    public func send(to address: SocketAddress, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        loop.send(to: address, write)
    }

    /// Datagrams our send queue or the kernel refused (`UDPSendQueue.droppedCount`). I/O thread only.
    public var sendDropCount: Int { loop.sendQueue.droppedCount }

    /// Arrival to the kernel taking each stamped datagram, µs (`PeerTransport.sendRTP(stampedAt:_:)`;
    /// UDP only). I/O thread only.
    public var sendLatency: LogHistogram { loop.sendQueue.sendLatency }

    /// Stops the I/O thread; transports stop receiving. Thread-safe.
    public func stop() {
        loop.execute { [self] in stopAccepting() }
        loop.stop()
    }

    // MARK: - I/O thread

    func route(_ bytes: UnsafeMutableRawBufferPointer, from source: SocketAddress) {
        let kind = PacketKind.classify(UnsafeRawBufferPointer(bytes))
        if kind == .probe {
            if let service { service.mediaPort(self, receive: UnsafeRawBufferPointer(bytes), from: source) } else { unroutedCount += 1 }
            return
        }
        if kind == .stun {
            guard let message = try? STUNMessage(parsing: UnsafeRawBufferPointer(bytes)) else { unroutedCount += 1; return }
            if message.type == .bindingRequest, let username = message.username {
                let ufrag = username.prefix { $0 != ":" }
                guard let transport = byUfrag[String(ufrag)] else { unroutedCount += 1; return }
                transport.receive(bytes, from: source, kind: kind, stun: message)
                return
            }
            guard let transport = byAddress[source] else { unroutedCount += 1; return }
            transport.receive(bytes, from: source, kind: kind, stun: message)
            return
        }
        guard let transport = byAddress[source] else { unroutedCount += 1; return }
        transport.receive(bytes, from: source, kind: kind, stun: nil)
    }

    private func tick(now: ContinuousClock.Instant) {
        let nanoseconds = Monotonic.now()
        for transport in byUfrag.values where nanoseconds >= transport.quietUntil { transport.tick(now: now) }
        service?.mediaPort(self, tick: now)
        tickHandler?(now)
        if !tcpConnections.isEmpty { closeIdleConnections(now: now) }
    }

    /// The transport a Binding request is for, by its USERNAME's first part (our ufrag).
    func transport(forCheck message: STUNMessage) -> PeerTransport? {
        guard message.type == .bindingRequest, let username = message.username else { return nil }
        return byUfrag[String(username.prefix { $0 != ":" })]
    }

    func countUnrouted() { unroutedCount += 1 }

    /// Nothing on the port needs the 10 ms tick: no transport, no ICE-TCP connection, no service.
    private var hasNothingToTime: Bool { byUfrag.isEmpty && tcpConnections.isEmpty && service == nil && attachedPipes == 0 }
}

/// A service that answers its own datagrams on the shared media port (the speed-test responder).
/// Called on the port's I/O thread only; it must not block. It sends with `MediaPort.send`.
public protocol MediaPortService: AnyObject, Sendable {
    /// A `probe` datagram (`PacketKind.probe`) from `source`; valid only during the call.
    func mediaPort(_ port: MediaPort, receive bytes: UnsafeRawBufferPointer, from source: SocketAddress)
    /// About every 10 ms, with the transports' timers.
    func mediaPort(_ port: MediaPort, tick now: ContinuousClock.Instant)
}

extension MediaPort: PeerTransportHost {
    func peerTransport(_ transport: PeerTransport, didSelect address: SocketAddress, previous: SocketAddress?) {
        let id = ObjectIdentifier(transport)
        if let previous, byAddress[previous] === transport {
            byAddress[previous] = nil
            addressesOf[id]?.remove(previous)
        }
        byAddress[address] = transport
        addressesOf[id, default: []].insert(address)
    }

    func peerTransportDidFinish(_ transport: PeerTransport) {
        closeConnections(of: transport)
        let id = ObjectIdentifier(transport)
        for address in addressesOf[id] ?? [] where byAddress[address] === transport { byAddress[address] = nil }
        addressesOf[id] = nil
        let ufrag = transport.localICE.ufrag
        if byUfrag[ufrag] === transport { byUfrag[ufrag] = nil }
    }

    func peerTransport(_ transport: PeerTransport, didChangeLocalUfrag ufrag: String, previous: String) {
        if byUfrag[previous] === transport { byUfrag[previous] = nil }
        byUfrag[ufrag] = transport
    }
}
