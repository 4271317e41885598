#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one poll step of RTCNet's reactor threads (`EventLoop`, `SharedUDPThread`): a poller, the
/// wake-up descriptor other threads signal, and what each polled descriptor belongs to, found by
/// descriptor number (no hashing, no allocation per event).
///
/// Owned by one thread: everything but `wakeup.signal()` runs on it.
final class PollTable<Target> {
    let poller: Poller
    /// Signalled by other threads when they hand work over; `wait` drains it.
    let wakeup: Wakeup
    private var targets: [Target?] = []
    private var events: [PollEvent] = []

    /// - Parameter portable: `poll(2)` even on Linux (where epoll is the default).
    init(portable: Bool = false) throws(NetError) {
        #if os(Linux)
        poller = portable ? PollPoller() : try EpollPoller()
        #else
        poller = PollPoller()
        #endif
        wakeup = try Wakeup()
        try poller.add(wakeup.readFD, read: true, write: false)
    }

    /// Starts polling `fd` for `target`.
    func add(_ fd: Int32, _ target: Target, read: Bool, write: Bool) throws(NetError) {
        try poller.add(fd, read: read, write: write)
        let slot = Int(fd)
        if slot >= targets.count { targets.append(contentsOf: repeatElement(nil, count: slot - targets.count + 1)) }
        targets[slot] = target
    }

    /// Changes what `fd` is polled for.
    func setInterest(_ fd: Int32, read: Bool, write: Bool) {
        do { try poller.modify(fd, read: read, write: write) } catch {}
    }

    /// Stops polling `fd` (call before closing it).
    func remove(_ fd: Int32) {
        poller.remove(fd)
        let slot = Int(fd)
        if slot >= 0 && slot < targets.count { targets[slot] = nil }
    }

    /// What `fd` is polled for, if anything.
    func target(_ fd: Int32) -> Target? {
        let slot = Int(fd)
        return slot >= 0 && slot < targets.count ? targets[slot] : nil
    }

    /// Waits up to `timeoutMilliseconds` (-1: until something happens), clears a wake-up, and
    /// hands every other ready descriptor that still has a target to `ready`.
    /// - Returns: how many descriptors the poller reported (a full answer, `Poller`'s capacity,
    ///   may leave more ready).
    @discardableResult
    func wait(timeoutMilliseconds: Int32, _ ready: (Target, PollEvent) -> Void) -> Int {
        poller.wait(timeoutMilliseconds: timeoutMilliseconds, into: &events)
        for event in events {
            if event.fd == wakeup.readFD {
                wakeup.drain()
                continue
            }
            // A target handled earlier in this round may have removed this one.
            guard let target = target(event.fd) else { continue }
            ready(target, event)
        }
        return events.count
    }

    /// Forgets every target without touching the poller (the thread ends and lets them go).
    func removeAllTargets() {
        targets.removeAll()
    }

    /// Closes the wake-up descriptor and the poller (the thread ends).
    func close() {
        poller.remove(wakeup.readFD)
        wakeup.close()
        poller.close()
    }
}
