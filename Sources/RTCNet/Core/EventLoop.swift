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
// @unchecked Sendable: timers and the poll table are touched only on the loop's own thread; other threads use `inbox`, the atomics and the table's wake-up.
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
    /// The poller, the wake-up and the registrations (the poll step shared with `SharedUDPThread`).
    private let table: PollTable<any Selectable>
    private let inbox = TaskInbox()
    private let threadToken = Atomic<UInt>(0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    // Loop-thread state.
    private var timers = TimerHeap<() -> Void>()
    /// Scratch space every connection of this loop reads into before parsing.
    let readScratch: UnsafeMutableRawBufferPointer

    init(index: Int, backend: Backend) throws(NetError) {
        self.index = index
        table = try PollTable(portable: backend == .poll)
        readScratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        let thread = Thread { [self] in run() }
        thread.name = "srtc-loop-\(index)"
        thread.start()
    }

    deinit { readScratch.deallocate() }

    // MARK: - Public API

    /// `true` when called on this loop's thread.
    public var inEventLoop: Bool { threadToken.load(ordering: .acquiring) == ThreadToken.current() }

    /// Tasks posted with `execute` and not yet started (tests wait on it to order their steps).
    var queuedTaskCount: Int { inbox.count }

    /// Runs `task` on the loop thread, after the work already queued. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let wasEmpty = inbox.post(task) == true
        if wasEmpty && !inEventLoop { table.wakeup.signal() }
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
        try table.add(fd, selectable, read: read, write: write)
    }

    /// Changes the readiness `fd` is watched for. Loop thread only.
    func setInterest(_ fd: Int32, read: Bool, write: Bool) {
        table.setInterest(fd, read: read, write: write)
    }

    /// Stops watching `fd` (call before closing it). Loop thread only.
    func deregister(_ fd: Int32) {
        table.remove(fd)
    }

    /// Asks the thread to exit after its current iteration and waits for it (unless called on it).
    func stop() {
        stopping.store(true, ordering: .releasing)
        table.wakeup.signal()
        if !inEventLoop { finished.wait() }
    }

    // MARK: - Internals

    private func run() {
        threadToken.store(ThreadToken.current(), ordering: .releasing)
        while !stopping.load(ordering: .acquiring) {
            table.wait(timeoutMilliseconds: waitTimeout()) { target, event in
                // Each call may deregister the target (a connection closing itself).
                if event.writable { target.writable() }
                if event.readable, table.target(event.fd) === target { target.readable() }
                if event.hangup, table.target(event.fd) === target { target.hangup() }
            }
            for action in timers.popDue(now: Monotonic.now()) { action() }
            runInbox()
        }
        runInbox()
        table.close()
        finished.signal()
    }

    private func runInbox() {
        // Bounded rounds: tasks that post more tasks cannot starve I/O.
        for _ in 0..<4 { guard inbox.run() else { return } }
    }

    private func waitTimeout() -> Int32 {
        if !inbox.isEmpty { return 0 }
        guard let deadline = timers.nextDeadline() else { return -1 }
        let now = Monotonic.now()
        if deadline <= now { return 0 }
        let milliseconds = (deadline - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }
}
