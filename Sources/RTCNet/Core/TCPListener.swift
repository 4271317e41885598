#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket on one event loop that hands each accepted descriptor to `onAccept`.
// @unchecked Sendable: `closed`, `paused` and the callbacks are used only on `loop`'s thread.
final class TCPListener: Selectable, @unchecked Sendable {
    let loop: EventLoop
    let fd: Int32
    /// The bound address (with the port the kernel picked when asked for port 0).
    let localAddress: SocketAddress
    private let onAccept: (Int32, SocketAddress?) -> Void
    /// Called (loop thread) when `accept` fails for lack of descriptors, so the owner can free one.
    var onDescriptorsExhausted: (() -> Void)?
    private var closed = false
    private var paused = false

    /// Binds and listens now (any thread); call `start()` on `loop` to begin accepting.
    init(address: SocketAddress, backlog: Int32, loop: EventLoop, onAccept: @escaping (Int32, SocketAddress?) -> Void) throws(NetError) {
        fd = try Sockets.listen(on: address, backlog: backlog)
        localAddress = Sockets.localAddress(fd) ?? address
        self.loop = loop
        self.onAccept = onAccept
    }

    /// Registers with the loop. Loop thread only.
    func start() throws(NetError) {
        try loop.register(fd, self, read: true, write: false)
    }

    /// Stops accepting and closes the socket. Loop thread only.
    func close() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd)
        Sockets.close(fd)
    }

    func readable() {
        // Bounded batch per wakeup; level-triggered polling brings us back for the rest.
        for _ in 0..<64 where !closed {
            do {
                guard let (connection, remote) = try Sockets.accept(fd) else { return }
                onAccept(connection, remote)
            } catch {
                if case .system(_, let e) = error, e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM {
                    pauseAccepting()
                    if e == EMFILE || e == ENFILE { onDescriptorsExhausted?() }
                }
                return
            }
        }
    }

    func writable() {}
    func hangup() {}

    /// Out of descriptors: the pending connection stays readable forever, so stop polling it briefly
    /// instead of spinning.
    private func pauseAccepting() {
        guard !paused else { return }
        paused = true
        loop.setInterest(fd, read: false, write: false)
        _ = loop.scheduleTimer(at: Monotonic.now() + 100_000_000) { [weak self] in
            guard let self, !self.closed else { return }
            self.paused = false
            self.loop.setInterest(self.fd, read: true, write: false)
        }
    }
}
