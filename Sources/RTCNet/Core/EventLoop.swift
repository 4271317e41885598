#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// An object registered with an event loop; its methods run on the loop's thread only.
protocol Selectable: AnyObject {
    func readable()
    func writable()
    /// The descriptor failed or was hung up in both directions.
    func hangup()
}

/// One reactor thread: a poller (epoll on Linux), a wakeup descriptor, a queue of tasks posted from
/// other threads, and a timer heap for deadlines (idle and slow-client timeouts, close timeouts).
///
/// Everything registered with a loop is confined to its thread; other threads reach it through
/// `execute(_:)`. Work done here is synchronous: no `await` on the I/O path.
// @unchecked Sendable: timers, registrations and events are touched only on the loop's own thread; other threads use `inbox` (Mutex) and the atomics.
public final class EventLoop: @unchecked Sendable {
    /// Which readiness API the loop uses.
    public enum Backend: Sendable {
        /// epoll on Linux, poll(2) elsewhere.
        case automatic
        /// poll(2) everywhere (portable fallback; selectable on Linux to test it).
        case poll
    }

    // MARK: - State

    /// Position of this loop in its group.
    public let index: Int
    private let poller: Poller
    private let wakeup: Wakeup
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    private let threadToken = Atomic<UInt>(0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    // Loop-thread state.
    private var timers = TimerHeap<() -> Void>()
    private var registrations: [Selectable?] = []
    private var events: [PollEvent] = []
    /// Scratch space every connection of this loop reads into before parsing.
    let readScratch: UnsafeMutableRawBufferPointer

    init(index: Int, backend: Backend) throws(NetError) {
        self.index = index
        #if os(Linux)
        poller = backend == .poll ? PollPoller() : try EpollPoller()
        #else
        poller = PollPoller()
        #endif
        wakeup = try Wakeup()
        readScratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        try poller.add(wakeup.readFD, read: true, write: false)
        let thread = Thread { [self] in run() }
        thread.name = "srtc-loop-\(index)"
        thread.start()
    }

    deinit { readScratch.deallocate() }

    // MARK: - Public API

    /// `true` when called on this loop's thread.
    public var inEventLoop: Bool { threadToken.load(ordering: .acquiring) == Self.currentThreadToken() }

    /// Tasks posted with `execute` and not yet started (tests wait on it to order their steps).
    var queuedTaskCount: Int { inbox.withLock { $0.count } }

    /// Runs `task` on the loop thread, after the work already queued. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let wasEmpty = inbox.withLock { queue in
            queue.append(task)
            return queue.count == 1
        }
        if wasEmpty && !inEventLoop { wakeup.signal() }
    }

    /// Runs `task` on the loop thread after `delay`. Safe from any thread.
    public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) {
        let deadline = Monotonic.now() &+ Monotonic.nanoseconds(delay)
        execute { [self] in _ = scheduleTimer(at: deadline, task) }
    }

    // MARK: - Loop-thread API

    /// Schedules `action` at `deadline` (monotonic nanoseconds). Loop thread only.
    func scheduleTimer(at deadline: UInt64, _ action: @escaping () -> Void) -> TimerID {
        timers.schedule(at: deadline, action)
    }

    /// Cancels a timer; harmless when it already fired. Loop thread only.
    func cancelTimer(_ timer: TimerID) {
        timers.cancel(timer)
    }

    /// Starts watching `fd` for `selectable`. Loop thread only.
    func register(_ fd: Int32, _ selectable: Selectable, read: Bool, write: Bool) throws(NetError) {
        try poller.add(fd, read: read, write: write)
        let slot = Int(fd)
        if slot >= registrations.count {
            registrations.append(contentsOf: repeatElement(nil, count: slot - registrations.count + 1))
        }
        registrations[slot] = selectable
    }

    /// Changes the readiness `fd` is watched for. Loop thread only.
    func setInterest(_ fd: Int32, read: Bool, write: Bool) {
        do { try poller.modify(fd, read: read, write: write) } catch {}
    }

    /// Stops watching `fd` (call before closing it). Loop thread only.
    func deregister(_ fd: Int32) {
        poller.remove(fd)
        let slot = Int(fd)
        if slot < registrations.count { registrations[slot] = nil }
    }

    /// Asks the thread to exit after its current iteration and waits for it (unless called on it).
    func stop() {
        stopping.store(true, ordering: .releasing)
        wakeup.signal()
        if !inEventLoop { finished.wait() }
    }

    // MARK: - Internals

    private func run() {
        threadToken.store(Self.currentThreadToken(), ordering: .releasing)
        while !stopping.load(ordering: .acquiring) {
            poller.wait(timeoutMilliseconds: waitTimeout(), into: &events)
            for event in events {
                if event.fd == wakeup.readFD {
                    wakeup.drain()
                    continue
                }
                let slot = Int(event.fd)
                guard slot < registrations.count, let target = registrations[slot] else { continue }
                if event.writable { target.writable() }
                if event.readable, registrations[slot] === target { target.readable() }
                if event.hangup, registrations[slot] === target { target.hangup() }
            }
            for action in timers.popDue(now: Monotonic.now()) { action() }
            runInbox()
        }
        runInbox()
        poller.remove(wakeup.readFD)
        wakeup.close()
        poller.close()
        finished.signal()
    }

    private func runInbox() {
        // Bounded rounds: tasks that post more tasks cannot starve I/O.
        for _ in 0..<4 {
            let tasks = inbox.withLock { queue -> [@Sendable () -> Void] in
                let taken = queue
                queue.removeAll(keepingCapacity: true)
                return taken
            }
            if tasks.isEmpty { return }
            for task in tasks { task() }
        }
    }

    private func waitTimeout() -> Int32 {
        if inbox.withLock({ !$0.isEmpty }) { return 0 }
        guard let deadline = timers.nextDeadline() else { return -1 }
        let now = Monotonic.now()
        if deadline <= now { return 0 }
        let milliseconds = (deadline - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    private static func currentThreadToken() -> UInt {
        #if canImport(Glibc)
        return UInt(pthread_self())
        #else
        return UInt(bitPattern: pthread_self())
        #endif
    }
}
