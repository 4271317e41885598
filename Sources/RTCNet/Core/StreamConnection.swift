#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-blocking TCP stream on one event loop, optionally wrapped in TLS, carrying bytes for a
/// `StreamHandler`. Confined to its loop's thread; other threads go through `loop.execute`.
///
/// It buffers what the kernel will not take yet, watches for a handler deadline and for stalled
/// writes with one lazily rearmed timer, and can close "lingering" (flush, half-close, drain the
/// peer's bytes) so an error response is not destroyed by a TCP reset. Readiness, closing and
/// deadlines are in `StreamConnection+Readiness`, `+Closing` and `+Deadlines`.
// @unchecked Sendable: every `var` is touched only on `loop`'s thread; other threads go through `loop.execute`.
final class StreamConnection: Selectable, @unchecked Sendable {
    enum State { case connecting, handshaking, active, lingering, closed }

    // MARK: - State

    let loop: EventLoop
    let fd: Int32
    let remoteAddress: SocketAddress?
    var handler: StreamHandler?
    var state: State
    /// Plaintext received and not yet consumed by the handler.
    var inbound = ByteBuffer()
    /// Bytes (ciphertext with TLS) waiting for the kernel.
    var outbound = ByteBuffer()
    let tls: TLSSession?
    var readingEnabled = true
    /// What the poller watches now.
    var interest = (read: false, write: false)
    var readClosed = false
    var closeWhenFlushed = false
    var lingerWhenFlushed = false
    /// Limit on queued outbound bytes; past it the connection closes (a consumer too slow to keep up).
    var maxOutboundBytes = 64 << 20
    /// Close when queued bytes make no progress for this long (nanoseconds); 0 disables.
    var writeStallTimeout: UInt64 = 0
    var lastWriteProgress: UInt64 = 0
    /// Handler deadline (monotonic ns); `streamDeadlineExpired` fires after it.
    var deadline: UInt64? { didSet { armTimer() } }
    var lingerDeadline: UInt64 = 0
    /// The one armed timer and when it fires (see StreamConnection+Deadlines.swift).
    var timer: (id: TimerID, at: UInt64)?

    /// Number of bytes queued for the kernel.
    var bufferedOutboundBytes: Int { outbound.readableBytes }
    var isClosed: Bool { state == .closed }

    // MARK: - Opening

    /// Wraps an accepted descriptor; call `start()` on the loop thread.
    init(loop: EventLoop, fd: Int32, remoteAddress: SocketAddress?, tls: TLSSession?, connecting: Bool) {
        self.loop = loop
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.tls = tls
        state = connecting ? .connecting : (tls != nil ? .handshaking : .active)
    }

    /// Registers with the loop and, for an accepted or already connected stream, starts the protocol.
    func start() {
        do {
            try loop.register(fd, self, read: state != .connecting, write: state == .connecting)
            interest = (state != .connecting, state == .connecting)
        } catch {
            Sockets.close(fd)
            state = .closed
            handler?.streamClosed(self, error: error)
            handler = nil
            return
        }
        Sockets.setNoDelay(fd)
        switch state {
        case .handshaking: advanceHandshake()
        case .active: handler?.streamActive(self)
        default: break
        }
    }

    /// Opens a client connection to `address` on `loop` (loop thread only); the handler hears
    /// `streamActive` or `streamClosed`. Returns the stream so the caller can set a deadline.
    @discardableResult
    static func connect(to address: SocketAddress, on loop: EventLoop, tls: TLSSession?, handler: StreamHandler) -> StreamConnection? {
        precondition(loop.inEventLoop)
        let fd: Int32
        let done: Bool
        do throws(NetError) {
            fd = try Sockets.tcpSocket(for: address.family)
            do throws(NetError) { done = try Sockets.startConnect(fd, to: address) } catch {
                Sockets.close(fd)
                throw error
            }
        } catch {
            let failed = StreamConnection(loop: loop, fd: -1, remoteAddress: address, tls: nil, connecting: false)
            failed.state = .closed
            handler.streamClosed(failed, error: error)
            return nil
        }
        let stream = StreamConnection(loop: loop, fd: fd, remoteAddress: address, tls: tls, connecting: !done)
        stream.handler = handler
        stream.start()
        return stream.isClosed ? nil : stream
    }

    // MARK: - Handler API

    /// Queues `bytes` and sends what the kernel takes now.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard state == .active || state == .handshaking, !closeWhenFlushed else { return }
        if let tls {
            do { try tls.write(bytes) } catch {
                close(error: error)
                return
            }
            tls.drain(into: &outbound, scratch: loop.readScratch)
        } else if outbound.isEmpty {
            var rest = bytes
            switch Sockets.write(fd, bytes) {
            case .processed(let n): rest = UnsafeRawBufferPointer(rebasing: bytes[n...])
            case .wouldBlock, .endOfStream: break
            case .failed(let e):
                close(error: .system(call: "send", errno: e))
                return
            }
            if !rest.isEmpty { outbound.append(rest) }
        } else {
            outbound.append(bytes)
        }
        if outbound.readableBytes > maxOutboundBytes {
            close(error: .limitExceeded("outbound buffer over \(maxOutboundBytes) bytes"))
            return
        }
        flush()
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Starts or stops reading (backpressure while a request is being handled).
    func setReading(_ enabled: Bool) {
        guard readingEnabled != enabled else { return }
        readingEnabled = enabled
        updateInterest()
    }
}
