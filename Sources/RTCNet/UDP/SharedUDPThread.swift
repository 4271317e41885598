#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// One thread of a `SharedUDPLoops` group: an epoll set (poll off Linux) over the sockets of the
/// `UDPReceiveLoop`s it serves and the descriptors they watch, one receive buffer set for all of
/// them, one timer that ticks every loop whose `tickInterval` has come, and a queue of closures
/// from other threads. A socket can be swept instead (`UDPReceiveLoop.sweep()`): it moves to a
/// second epoll set that is never waited on, so its datagrams wake nobody, and every
/// `sweepInterval` the thread asks that set which sockets hold data (a zero-timeout wait) and
/// drains each with `recvmmsg`: many datagrams per system call instead of a wake-up, a wait and
/// a read of one or two. Everything a served loop's handlers touch stays on this one thread, so the
/// loops' threading contract is unchanged.
// @unchecked Sendable: the poll table, `attached` and the receiver are touched only on this thread; other threads use `inbox`, the atomics and the table's wake-up.
final class SharedUDPThread: @unchecked Sendable {
    /// What a ready descriptor belongs to.
    private struct Target {
        let loop: UDPReceiveLoop
        /// The loop's socket (else a descriptor it watches, `UDPReceiveLoop.watch`).
        let isSocket: Bool
    }

    let index: Int
    let tickInterval: Duration
    /// How often swept sockets are drained.
    let sweepInterval: Duration
    /// Every served socket is read into these buffers (this thread only).
    let receiver = UDPBatchReceiver(batchSize: 32, slotSize: 2048)
    /// The poller, the wake-up and the served descriptors' targets (the poll step shared with `EventLoop`).
    private let table: PollTable<Target>
    /// The swept sockets: polled only with a zero timeout, every `sweepInterval` (this thread).
    private let swept: PollTable<Target>
    private var sweptCount = 0
    /// `sweptCount` for other threads.
    private let sweptShared = Atomic<Int>(0)
    /// Work from other threads; `closed` once the thread ended (nothing posted runs after).
    private let inbox = TaskInbox()
    private let threadToken = Atomic<UInt>(0)
    private let priorityInForce = Atomic<Int>(-1)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let attachedCount = Atomic<Int>(0)
    // This thread only: the attached loops (ticked).
    private var attached: [UDPReceiveLoop] = []

    init(index: Int, tickInterval: Duration, sweepInterval: Duration, name: String, priority: IOThreadPriority) throws(NetError) {
        self.index = index
        self.tickInterval = tickInterval
        self.sweepInterval = sweepInterval
        table = try PollTable()
        swept = try PollTable()
        IOThread.start(name: name, priority: priority) { [self] applied in
            priorityInForce.store(IOThreadPriority.allCases.firstIndex(of: applied)!, ordering: .releasing)
            run()
        }
    }

    var isOnThread: Bool { threadToken.load(ordering: .acquiring) == ThreadToken.current() }

    var appliedPriority: IOThreadPriority? {
        let index = priorityInForce.load(ordering: .acquiring)
        return index < 0 ? nil : IOThreadPriority.allCases[index]
    }

    /// Sockets served now.
    var socketCount: Int { attachedCount.load(ordering: .relaxed) }

    /// Of those, sockets swept now.
    var sweptSocketCount: Int { sweptShared.load(ordering: .relaxed) }

    // MARK: - From any thread

    /// Runs `work` on this thread for `loop` (skipped once the loop is detached), then sends what
    /// it queued. The caller already ran it inline when on this thread.
    func execute(for loop: UDPReceiveLoop, _ work: @escaping @Sendable () -> Void) {
        post {
            guard !loop.detached else { return }
            work()
            loop.afterWork(now: .now)
        }
    }

    /// Starts serving `loop`'s socket; its first tick comes at once (as a thread of its own would).
    func attach(_ loop: UDPReceiveLoop) {
        post { [self] in
            let fd = loop.socket.descriptor
            do { try table.add(fd, Target(loop: loop, isSocket: true), read: true, write: false) } catch { return }
            loop.nextTick = .now
            attached.append(loop)
            attachedCount.add(1, ordering: .relaxed)
        }
    }

    /// Stops serving `loop` (its socket and watched descriptors); waits for it unless on this
    /// thread. Work posted for it afterwards is dropped, as a stopped loop of its own drops it.
    func detach(_ loop: UDPReceiveLoop) {
        if isOnThread { return remove(loop) }
        let done = DispatchSemaphore(value: 0)
        if post({ [self] in remove(loop); done.signal() }) { done.wait() }
    }

    /// Ends the thread and waits for it (unless called on it).
    func stop() {
        stopping.store(true, ordering: .releasing)
        table.wakeup.signal()
        if !isOnThread { finished.wait() }
    }

    // MARK: - This thread (a served loop's calls)

    func watch(_ fd: Int32, for loop: UDPReceiveLoop, read: Bool, write: Bool) {
        do { try table.add(fd, Target(loop: loop, isSocket: false), read: read, write: write) } catch { return }
    }

    func setInterest(_ fd: Int32, read: Bool, write: Bool) {
        table.setInterest(fd, read: read, write: write)
    }

    func unwatch(_ fd: Int32) {
        table.remove(fd)
    }

    /// Moves `loop`'s socket from the readiness set to the swept set (see the type's comment).
    /// - Returns: false when the socket is not served here (or already swept).
    func sweep(_ loop: UDPReceiveLoop) -> Bool {
        let fd = loop.socket.descriptor
        guard fd >= 0, let target = table.target(fd), target.loop === loop, target.isSocket else { return false }
        do { try swept.add(fd, target, read: true, write: false) } catch { return false }
        table.remove(fd)
        sweptCount += 1
        sweptShared.add(1, ordering: .relaxed)
        return true
    }

    // MARK: - Internals

    /// `false` when the thread has ended (the work will not run).
    @discardableResult
    private func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard let first = inbox.post(work) else { return false }
        if first && !isOnThread { table.wakeup.signal() }
        return true
    }

    private func remove(_ loop: UDPReceiveLoop) {
        guard !loop.detached else { return }
        loop.detached = true
        for fd in loop.extraHandlers.keys { unwatch(fd) }
        let fd = loop.socket.descriptor
        if fd >= 0, table.target(fd)?.loop === loop { unwatch(fd) }
        if fd >= 0, swept.target(fd)?.loop === loop {
            swept.remove(fd)
            sweptCount -= 1
            sweptShared.subtract(1, ordering: .relaxed)
        }
        if let i = attached.firstIndex(where: { $0 === loop }) {
            attached.swapAt(i, attached.count - 1)
            attached.removeLast()
            attachedCount.subtract(1, ordering: .relaxed)
        }
    }

    private func run() {
        threadToken.store(ThreadToken.current(), ordering: .releasing)
        let clock = ContinuousClock()
        var nextTick = clock.now + tickInterval
        var nextSweep = clock.now + sweepInterval
        while !stopping.load(ordering: .acquiring) {
            let wakeAt = sweptCount > 0 ? min(nextTick, nextSweep) : nextTick
            let timeout = inbox.isEmpty ? UDPReceiveLoop.pollTimeout(until: wakeAt, now: clock.now) : 0
            table.wait(timeoutMilliseconds: timeout) { target, event in
                if target.isSocket {
                    target.loop.serviceSocket(with: receiver)
                } else {
                    target.loop.dispatchWatched(event.fd, UDPReceiveLoop.Readiness(readable: event.readable, writable: event.writable,
                                                                                   hangup: event.hangup))
                }
            }
            inbox.run()
            let now = clock.now
            if sweptCount > 0, now >= nextSweep {
                // A full answer (the poller's capacity) may leave sockets ready: ask again.
                for _ in 0..<8 {
                    let reported = swept.wait(timeoutMilliseconds: 0) { target, _ in target.loop.serviceSocket(with: receiver) }
                    if reported < 256 { break }
                }
                nextSweep = now + sweepInterval
            }
            if now >= nextTick {
                // By index: a tick may detach its own loop (a transport failing closes itself).
                var i = 0
                while i < attached.count {
                    attached[i].tickIfDue(now)
                    i += 1
                }
                nextTick = now + tickInterval
            }
        }
        inbox.close()
        inbox.run()
        for loop in attached { loop.detached = true }
        attached.removeAll()
        table.removeAllTargets()
        table.close()
        swept.removeAllTargets()
        swept.close()
        finished.signal()
    }
}
