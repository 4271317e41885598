import RTCNet
import RTCTransport
import Synchronization

/// The SFU media plane ("SeaStart" engine): one `MediaPort` (one UDP port, one I/O thread) and
/// every router, transport, producer and consumer forwarding on it.
///
/// **Threading.** All media objects live on the port's I/O thread. The control methods below
/// may be called from any thread or task: each posts its work to the I/O thread and resumes the
/// caller with the result. Packets are forwarded synchronously on the I/O thread (receive →
/// SRTP unprotect → producer → consumers rewrite into the send queue → SRTP protect → one
/// `sendmmsg` per batch) without allocation, locks or `await`. Events reach `listener` on the
/// I/O thread. Timers run every `configuration.tickInterval` from the port's own 10 ms timer.
///
/// ```swift
/// let sfu = try SFUWorker(bind: SocketAddress(ip: "0.0.0.0", port: 7881)!, listener: relay)
/// try await sfu.createRouter("room1")
/// try await sfu.createTransport("alice/pub", router: "room1", participant: "alice", parameters: fromSDP)
/// try await sfu.produce("TR_v1", transport: "alice/pub", kind: .video, parameters: negotiated)
/// let info = try await sfu.consume("bob/TR_v1", transport: "bob/sub", producer: "TR_v1",
///                                  parameters: bobsSide, preferredLayer: "camera_small")
/// try await sfu.setPreferredLayer("bob/TR_v1", layer: "camera_big")
/// ```
public final class SFUWorker: Sendable {
    /// The UDP port all transports share (its `localAddress` is the ICE candidate to announce).
    public let port: MediaPort
    public let configuration: SFUConfiguration
    let core: SFUCore
    private let listenerBox: ListenerBox
    let stopped = Atomic<Bool>(false)

    /// Binds the media port, starts its I/O thread and the SFU's timers.
    /// - Parameters:
    ///   - tcpBind: where the port also accepts ICE-TCP connections (`nil`: UDP only).
    ///   - listener: receives events on the I/O thread; held weakly.
    public init(bind address: SocketAddress, tcpBind: SocketAddress? = nil, configuration: SFUConfiguration = SFUConfiguration(),
                listener: SFUListener? = nil) throws(NetError) {
        port = try MediaPort(bind: address, tcpBind: tcpBind, priority: configuration.ioThreadPriority,
                             threadName: configuration.threadName)
        self.configuration = configuration
        let box = ListenerBox(listener)
        listenerBox = box
        let core = SFUCore(configuration: configuration)
        self.core = core
        core.emit = { [weak self, box] event in
            guard let self, let listener = box.listener else { return }
            listener.sfuWorker(self, didEmit: event)
        }
        // Set before the tick handler is posted, so before the I/O thread first reads it.
        core.metrics.forwardingLatency = { [weak port] in port?.sendLatency ?? LogHistogram() }
        core.metrics.portCounters = { [weak port] in (port?.unroutedCount ?? 0, port?.sendDropCount ?? 0) }
        port.setTickHandler { _ in core.portTick(now: MediaClock.now()) }
    }

    deinit {
        port.stop()
    }

    /// Replaces the listener (held weakly).
    public func setListener(_ listener: SFUListener?) {
        listenerBox.set(listener)
    }

    /// Stops timers and the I/O thread; transports stop. Further calls fail with `workerStopped`.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        port.stop()
    }

    // MARK: - Posting work

    /// Runs `body` on the I/O thread and returns its result.
    func perform<T: Sendable>(_ body: @escaping @Sendable (SFUCore, Int64) throws(SFUError) -> T) async throws(SFUError) -> T {
        guard !stopped.load(ordering: .acquiring) else { throw .workerStopped }
        let result: Result<T, SFUError> = await withCheckedContinuation { continuation in
            let core = self.core
            port.execute {
                continuation.resume(returning: Result { () throws(SFUError) -> T in try body(core, MediaClock.now()) })
            }
        }
        return try result.get()
    }
}

/// The listener, weakly, behind a lock so it can be replaced from any thread.
final class ListenerBox: Sendable {
    private struct Weak: Sendable { weak var value: SFUListener? }
    private let storage: Mutex<Weak>

    init(_ listener: SFUListener?) { storage = Mutex(Weak(value: listener)) }

    var listener: SFUListener? { storage.withLock { $0.value } }

    func set(_ listener: SFUListener?) { storage.withLock { $0.value = listener } }
}
