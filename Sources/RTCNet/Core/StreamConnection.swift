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
/// peer's bytes) so an error response is not destroyed by a TCP reset.
final class StreamConnection: Selectable, @unchecked Sendable {
    enum State { case connecting, handshaking, active, lingering, closed }

    // MARK: - State

    let loop: EventLoop
    let fd: Int32
    let remoteAddress: SocketAddress?
    var handler: StreamHandler?
    private(set) var state: State
    /// Plaintext received and not yet consumed by the handler.
    var inbound = ByteBuffer()
    /// Bytes (ciphertext with TLS) waiting for the kernel.
    var outbound = ByteBuffer()
    private let tls: TLSSession?
    private var readingEnabled = true
    /// What the poller watches now.
    private var interest = (read: false, write: false)
    private var readClosed = false
    private var closeWhenFlushed = false
    private var lingerWhenFlushed = false
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

    /// Closes once everything queued is sent. With `linger`, half-closes and drains the peer's
    /// bytes for up to `lingerTimeout` first, so the peer reads our last response before any reset.
    func closeAfterFlush(linger: Bool = false, lingerTimeout: Duration = .seconds(2)) {
        guard state != .closed, !closeWhenFlushed else { return }
        closeWhenFlushed = true
        lingerWhenFlushed = linger
        lingerDeadline = Monotonic.now() &+ Monotonic.nanoseconds(lingerTimeout)
        if outbound.isEmpty { finishFlushClose() }
    }

    /// Closes now, dropping anything unsent. `error` is passed to the handler.
    func close(error: NetError? = nil) {
        guard state != .closed else { return }
        state = .closed
        if let timer { loop.cancelTimer(timer.id) }
        timer = nil
        if fd >= 0 {
            loop.deregister(fd)
            Sockets.close(fd)
        }
        inbound.clear()
        outbound.clear()
        let h = handler
        handler = nil
        h?.streamClosed(self, error: error)
    }

    // MARK: - Readiness

    func readable() {
        switch state {
        case .connecting, .closed: return
        case .lingering: drainWhileLingering(); return
        case .handshaking, .active: break
        }
        guard readingEnabled, !readClosed else { return }
        let scratch = loop.readScratch
        var eof = false
        // A few reads per wakeup at most, so one busy peer cannot starve the others on this loop.
        reading: for _ in 0..<4 {
            switch Sockets.read(fd, into: scratch) {
            case .processed(let n):
                let chunk = UnsafeRawBufferPointer(rebasing: scratch[0..<n])
                if let tls { tls.feed(chunk) } else { inbound.append(chunk) }
                if n < scratch.count { break reading }
            case .wouldBlock:
                break reading
            case .endOfStream:
                eof = true
                break reading
            case .failed(let e):
                close(error: e == ECONNRESET ? .connectionClosed : .system(call: "recv", errno: e))
                return
            }
        }
        if let tls {
            if state == .handshaking { advanceHandshake() }
            guard state == .active else { return }
            do {
                if try tls.read(into: &inbound, scratch: scratch) { eof = true }
            } catch {
                close(error: error)
                return
            }
            tls.drain(into: &outbound, scratch: scratch)
            if !outbound.isEmpty { flush() }
        }
        if !inbound.isEmpty, state == .active { handler?.streamReceived(self) }
        if eof, state == .active || state == .handshaking {
            readClosed = true
            updateInterest()
            if state == .handshaking { close(error: .connectionClosed) } else { handler?.streamReadClosed(self) }
        }
    }

    func writable() {
        if state == .connecting {
            finishConnect()
            return
        }
        flush()
    }

    func hangup() {
        if state == .connecting {
            finishConnect()
            return
        }
        // Either nobody reads for now (backpressure) or the socket is dead: both mean close.
        if readingEnabled, !readClosed, state == .active || state == .handshaking || state == .lingering {
            readable()
        }
        if state != .closed { close(error: .connectionClosed) }
    }

    // MARK: - Internals

    private func finishConnect() {
        let error = Sockets.pendingError(fd)
        guard error == 0 else {
            close(error: .system(call: "connect", errno: error))
            return
        }
        state = tls != nil ? .handshaking : .active
        updateInterest()
        if tls != nil { advanceHandshake() } else { handler?.streamActive(self) }
    }

    private func advanceHandshake() {
        guard let tls else { return }
        do {
            let done = try tls.handshake()
            tls.drain(into: &outbound, scratch: loop.readScratch)
            flush()
            guard state == .handshaking else { return }
            if done {
                state = .active
                handler?.streamActive(self)
                // Application data may have arrived with the last handshake flight.
                guard state == .active else { return }
                if try tls.read(into: &inbound, scratch: loop.readScratch) { readClosed = true }
                if !inbound.isEmpty { handler?.streamReceived(self) }
            }
        } catch {
            close(error: error)
        }
    }

    private func flush() {
        let before = outbound.readableBytes
        sending: while !outbound.isEmpty {
            switch outbound.withReadableBytes({ Sockets.write(fd, $0) }) {
            case .processed(let n):
                outbound.moveReaderIndex(by: n)
            case .wouldBlock, .endOfStream:
                break sending
            case .failed(let e):
                close(error: e == EPIPE || e == ECONNRESET ? .connectionClosed : .system(call: "send", errno: e))
                return
            }
        }
        if outbound.readableBytes != before || before == 0 { lastWriteProgress = Monotonic.now() }
        updateInterest()
        if outbound.isEmpty {
            if closeWhenFlushed { finishFlushClose() } else if before > 0 { handler?.streamFlushed(self) }
        } else if writeStallTimeout > 0 {
            armTimer()
        }
    }

    private func finishFlushClose() {
        guard state != .closed, state != .lingering else { return }
        if lingerWhenFlushed && !readClosed {
            if let tls {
                // close_notify, best effort: the peer is about to see our FIN anyway.
                tls.shutdown()
                tls.drain(into: &outbound, scratch: loop.readScratch)
                outbound.withReadableBytes { _ = Sockets.write(fd, $0) }
                outbound.clear()
            }
            state = .lingering
            Sockets.shutdownWrite(fd)
            readingEnabled = true
            updateInterest()
            armTimer()
        } else {
            close()
        }
    }

    private func drainWhileLingering() {
        while true {
            switch Sockets.read(fd, into: loop.readScratch) {
            case .processed: continue
            case .wouldBlock: return
            case .endOfStream, .failed: close(); return
            }
        }
    }

    /// Tells the poller what to watch, only when it changed: an epoll_ctl per response would cost
    /// as much as the write itself.
    private func updateInterest() {
        guard state != .closed, fd >= 0 else { return }
        let read = state != .connecting && readingEnabled && !readClosed
        let write = state == .connecting || !outbound.isEmpty
        guard read != interest.read || write != interest.write else { return }
        interest = (read, write)
        loop.setInterest(fd, read: read, write: write)
    }
}
