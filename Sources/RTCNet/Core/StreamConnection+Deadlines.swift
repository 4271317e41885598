/// Deadlines of a stream with a single timer: the handler's deadline, the write-stall limit and the
/// end of a lingering close share it, and moving a deadline later costs nothing until the timer fires.
extension StreamConnection {
    /// Earliest moment something must be checked: handler deadline, write stall, or end of lingering.
    private func nextCheck() -> UInt64? {
        if state == .lingering { return lingerDeadline }
        var earliest = deadline
        if writeStallTimeout > 0, !outbound.isEmpty {
            let stall = lastWriteProgress &+ writeStallTimeout
            earliest = min(earliest ?? stall, stall)
        }
        return earliest
    }

    /// Keeps one timer at or before `nextCheck()`; moving a deadline later costs nothing until it fires.
    func armTimer() {
        guard state != .closed, let due = nextCheck() else { return }
        if let timer, timer.at <= due { return }
        if let timer { loop.cancelTimer(timer.id) }
        let id = loop.scheduleTimer(at: due) { [weak self] in self?.timerFired() }
        timer = (id, due)
    }

    private func timerFired() {
        timer = nil
        guard state != .closed else { return }
        let now = Monotonic.now()
        if state == .lingering {
            if now >= lingerDeadline { close() } else { armTimer() }
            return
        }
        if writeStallTimeout > 0, !outbound.isEmpty, now >= lastWriteProgress &+ writeStallTimeout {
            close(error: .timeout)
            return
        }
        if let d = deadline, now >= d {
            deadline = nil
            handler?.streamDeadlineExpired(self)
        }
        armTimer()
    }
}
