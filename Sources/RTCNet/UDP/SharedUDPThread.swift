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
/// from other threads. Everything a served loop's handlers touch stays on this one thread, so the
/// loops' threading contract is unchanged.
// @unchecked Sendable: `targets`, `attached`, `events`, `running` and the receiver are touched only on this thread; other threads use `inbox` (Mutex), the atomics and the eventfd.
final class SharedUDPThread: @unchecked Sendable {
    /// What a ready descriptor belongs to.
    private struct Target {
        let loop: UDPReceiveLoop
        /// The loop's socket (else a descriptor it watches, `UDPReceiveLoop.watch`).
        let isSocket: Bool
    }

    let index: Int
    let tickInterval: Duration
    /// Every served socket is read into these buffers (this thread only).
    let receiver = UDPBatchReceiver(batchSize: 32, slotSize: 2048)
    private let poller: Poller
    private let wakeup: Wakeup
    /// Work from other threads; `closed` once the thread ended (nothing posted runs after).
    private let inbox = Mutex<(tasks: [@Sendable () -> Void], closed: Bool)>(([], false))
    private var running: [@Sendable () -> Void] = []
    private let threadToken = Atomic<UInt>(0)
    private let priorityInForce = Atomic<Int>(-1)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let attachedCount = Atomic<Int>(0)
    // This thread only: targets by descriptor, the attached loops (ticked), the poller's events.
    private var targets: [Target?] = []
    private var attached: [UDPReceiveLoop] = []
    private var events: [PollEvent] = []

    init(index: Int, tickInterval: Duration, name: String, priority: IOThreadPriority) throws(NetError) {
        self.index = index
        self.tickInterval = tickInterval
        #if os(Linux)
        poller = try EpollPoller()
        #else
        poller = PollPoller()
        #endif
        wakeup = try Wakeup()
        try poller.add(wakeup.readFD, read: true, write: false)
        IOThread.start(name: name, priority: priority) { [self] applied in
            priorityInForce.store(IOThreadPriority.allCases.firstIndex(of: applied)!, ordering: .releasing)
            run()
        }
    }

    var isOnThread: Bool { threadToken.load(ordering: .acquiring) == Self.currentThreadToken() }

    var appliedPriority: IOThreadPriority? {
        let index = priorityInForce.load(ordering: .acquiring)
        return index < 0 ? nil : IOThreadPriority.allCases[index]
    }

    /// Sockets served now.
    var socketCount: Int { attachedCount.load(ordering: .relaxed) }

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
            do { try poller.add(fd, read: true, write: false) } catch { return }
            setTarget(fd, Target(loop: loop, isSocket: true))
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
        wakeup.signal()
        if !isOnThread { finished.wait() }
    }

    // MARK: - This thread (a served loop's calls)

    func watch(_ fd: Int32, for loop: UDPReceiveLoop, read: Bool, write: Bool) {
        do { try poller.add(fd, read: read, write: write) } catch { return }
        setTarget(fd, Target(loop: loop, isSocket: false))
    }

    func setInterest(_ fd: Int32, read: Bool, write: Bool) {
        do { try poller.modify(fd, read: read, write: write) } catch {}
    }

    func unwatch(_ fd: Int32) {
        poller.remove(fd)
        setTarget(fd, nil)
    }

    // MARK: - Internals

    /// `false` when the thread has ended (the work will not run).
    @discardableResult
    private func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (posted, first) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.closed else { return (false, false) }
            inbox.tasks.append(work)
            return (true, inbox.tasks.count == 1)
        }
        if first && !isOnThread { wakeup.signal() }
        return posted
    }

    private func setTarget(_ fd: Int32, _ target: Target?) {
        let slot = Int(fd)
        guard slot >= 0 else { return }
        if slot >= targets.count {
            guard target != nil else { return }
            targets.append(contentsOf: repeatElement(nil, count: slot - targets.count + 1))
        }
        targets[slot] = target
    }

    private func remove(_ loop: UDPReceiveLoop) {
        guard !loop.detached else { return }
        loop.detached = true
        for fd in loop.extraHandlers.keys { unwatch(fd) }
        let fd = loop.socket.descriptor
        if fd >= 0, Int(fd) < targets.count, targets[Int(fd)]?.loop === loop { unwatch(fd) }
        if let i = attached.firstIndex(where: { $0 === loop }) {
            attached.swapAt(i, attached.count - 1)
            attached.removeLast()
            attachedCount.subtract(1, ordering: .relaxed)
        }
    }

    private func run() {
        threadToken.store(Self.currentThreadToken(), ordering: .releasing)
        let clock = ContinuousClock()
        var nextTick = clock.now + tickInterval
        while !stopping.load(ordering: .acquiring) {
            let timeout = inbox.withLock({ $0.tasks.isEmpty }) ? UDPReceiveLoop.pollTimeout(until: nextTick, now: clock.now) : 0
            poller.wait(timeoutMilliseconds: timeout, into: &events)
            for event in events {
                if event.fd == wakeup.readFD {
                    wakeup.drain()
                    continue
                }
                let slot = Int(event.fd)
                guard slot < targets.count, let target = targets[slot] else { continue }
                if target.isSocket {
                    target.loop.serviceSocket(with: receiver)
                } else {
                    target.loop.dispatchWatched(event.fd, UDPReceiveLoop.Readiness(readable: event.readable, writable: event.writable,
                                                                                   hangup: event.hangup))
                }
            }
            runInbox()
            let now = clock.now
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
        inbox.withLock { $0.closed = true }
        runInbox()
        for loop in attached { loop.detached = true }
        attached.removeAll()
        targets.removeAll()
        poller.remove(wakeup.readFD)
        wakeup.close()
        poller.close()
        finished.signal()
    }

    /// Runs the posted closures; the two lists trade places under the lock (no copy, no allocation).
    private func runInbox() {
        inbox.withLock { swap(&$0.tasks, &running) }
        guard !running.isEmpty else { return }
        for work in running { work() }
        running.removeAll(keepingCapacity: true)
    }

    private static func currentThreadToken() -> UInt {
        #if canImport(Glibc)
        return UInt(pthread_self())
        #else
        return UInt(bitPattern: pthread_self())
        #endif
    }
}
