#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Closing a stream: at once, or after a flush, optionally "lingering" (half-close, then drain the
/// peer's bytes) so the peer reads our last response before any TCP reset.
extension StreamConnection {
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

    func finishFlushClose() {
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

    func drainWhileLingering() {
        while true {
            switch Sockets.read(fd, into: loop.readScratch) {
            case .processed: continue
            case .wouldBlock: return
            case .endOfStream, .failed: close(); return
            }
        }
    }
}
