import Foundation
import RTCNet
import RTCWire
import SRTCCore
import Synchronization

/// Runs one `SpeedTestMachine` over a UDP socket of its own, on a thread of its own (a
/// `UDPReceiveLoop` ticking every 2 ms, so load is paced finely). Events go to `onEvent` on that
/// thread; after `.finished` or `.failed` the tester stops itself.
// @unchecked Sendable: `machine` and `server` are set before the loop starts and then touched only on its I/O thread; `loop` and `stopped` are Mutexes.
final class SpeedTester: @unchecked Sendable {
    private let params: SpeedTestParams
    private let bindAddress: String
    private let onEvent: @Sendable (SpeedTestMachine.Event) -> Void
    private let loop = Mutex<UDPReceiveLoop?>(nil)
    private let stopped = Mutex(false)
    private let clock = SpeedTestClock()
    // I/O thread only (set before the loop starts).
    private var machine: SpeedTestMachine
    private var server = SocketAddress(ipv4: (0, 0, 0, 0), port: 0)

    /// - Parameters:
    ///   - params: clamped parameters.
    ///   - bindAddress: the engine's `mediaBindAddress` (IPv4); an IPv6 server gets `::`.
    init(params: SpeedTestParams, bindAddress: String, onEvent: @escaping @Sendable (SpeedTestMachine.Event) -> Void) {
        self.params = params
        self.bindAddress = bindAddress
        self.onEvent = onEvent
        machine = SpeedTestMachine(params: params)
    }

    /// Resolves the server (on a thread: `getaddrinfo` may block), binds and starts.
    func start() {
        Thread.detachNewThread { [self] in
            do {
                let address = try SocketAddress.resolve(host: params.serverAddress, port: params.serverPort)
                let bind = address.family == .ipv6 ? "::" : bindAddress
                guard let local = SocketAddress(ip: bind, port: 0) else { throw SRTCError.invalidURL(bind) }
                let socket = try UDPSocket(bind: local)
                let loop = try UDPReceiveLoop(socket: socket, batchSize: 32, sendQueueCapacity: 64, tickInterval: .milliseconds(2))
                server = address
                loop.onDatagram = { [unowned self] bytes, source in received(UnsafeRawBufferPointer(bytes), from: source) }
                loop.onTick = { [unowned self] now in ticked(now) }
                let proceed = stopped.withLock { isStopped -> Bool in
                    guard !isStopped else { return false }
                    self.loop.withLock { $0 = loop }
                    return true
                }
                guard proceed else { return }
                loop.start(name: "srtc-speedtest")
                loop.execute { [self] in machine.start(now: clock.now, send: send) }
            } catch let error as SRTCError {
                finish(.failed(error))
            } catch {
                finish(.failed(.connectionFailed("speed test to \(params.serverAddress):\(params.serverPort): \(error)")))
            }
        }
    }

    /// Stops at once; nothing more is reported. Thread-safe.
    func stop() {
        let loop = stopped.withLock { isStopped -> UDPReceiveLoop? in
            isStopped = true
            return self.loop.withLock { $0 }
        }
        guard let loop else { return }
        loop.execute { [self] in machine.stop(now: clock.now, send: send) }
        loop.stop()
    }

    // MARK: - I/O thread

    private func received(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        guard source == server, let packet = try? SpeedTestPacket(parsing: bytes) else { return }
        if let event = machine.receive(packet, now: clock.now, send: send) { deliver(event) }
    }

    private func ticked(_ now: ContinuousClock.Instant) {
        if let event = machine.tick(now: clock.micros(now), send: send) { deliver(event) }
    }

    private func send(_ packet: SpeedTestPacket) {
        guard let loop = loop.withLock({ $0 }) else { return }
        loop.send(to: server) { packet.serialize(into: $0) }
    }

    private func deliver(_ event: SpeedTestMachine.Event) {
        switch event {
        case .progress:
            if !stopped.withLock({ $0 }) { onEvent(event) }
        case .finished, .failed:
            finish(event)
            loop.withLock { $0 }?.stop()
        }
    }

    /// Reports the last event once, unless stopped.
    private func finish(_ event: SpeedTestMachine.Event) {
        let report = stopped.withLock { isStopped -> Bool in
            defer { isStopped = true }
            return !isStopped
        }
        if report { onEvent(event) }
    }

}
