#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Readiness from the poller: reading (through TLS when there is one), connecting, the TLS
/// handshake, flushing what the kernel did not take, and telling the poller what to watch.
extension StreamConnection {
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

    func finishConnect() {
        let error = Sockets.pendingError(fd)
        guard error == 0 else {
            close(error: .system(call: "connect", errno: error))
            return
        }
        state = tls != nil ? .handshaking : .active
        updateInterest()
        if tls != nil { advanceHandshake() } else { handler?.streamActive(self) }
    }

    func advanceHandshake() {
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

    func flush() {
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

    /// Tells the poller what to watch, only when it changed: an epoll_ctl per response would cost
    /// as much as the write itself.
    func updateInterest() {
        guard state != .closed, fd >= 0 else { return }
        let read = state != .connecting && readingEnabled && !readClosed
        let write = state == .connecting || !outbound.isEmpty
        guard read != interest.read || write != interest.write else { return }
        interest = (read, write)
        loop.setInterest(fd, read: read, write: write)
    }
}
