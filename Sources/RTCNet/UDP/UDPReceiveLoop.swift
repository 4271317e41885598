#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The I/O thread of one UDP socket: waits with `poll`, reads batches with `UDPBatchReceiver`,
/// calls `onDatagram` for each datagram and `onBatchEnd` after each batch (where the owner flushes
/// its `UDPSendQueue`), calls `onTick` about every `tickInterval` for protocol timers, and runs
/// closures handed over from other threads with `execute(_:)`.
///
/// A loop made with `sharedBy:` has no thread of its own: one of a `SharedUDPLoops` group's threads
/// serves its socket beside many others (a load generator's hundreds of client transports), with
/// the same contract: that thread is then "the loop's thread".
///
/// Threading contract: the three handlers and every closure passed to `execute` run on this one
/// thread, one at a time; they must not block. Everything else a handler touches (peer state,
/// SRTP contexts, the send queue) therefore needs no lock. Other threads talk to the loop only
/// through `execute(_:)` and `stop()`.
// @unchecked Sendable: handlers and the watched descriptors are touched only on the loop's thread (set before `start`); other threads use `pending` (a `TaskInbox`) and the atomics.
public final class UDPReceiveLoop: @unchecked Sendable {
    public let socket: UDPSocket
    public let receiver: UDPBatchReceiver
    /// Datagrams queued by handlers (through `send`); flushed once `flushThreshold` wait after a
    /// datagram's handler, after `onBatchEnd`, after `execute` work, after ticks, and whenever full.
    public let sendQueue: UDPSendQueue
    public let tickInterval: Duration
    /// Queued datagrams that make the loop send at once after a received datagram, before the
    /// rest of its batch; fewer wait for the batch's end, so one `sendmmsg` carries several.
    public let flushThreshold: Int

    /// Called for each datagram with a mutable view of it (valid only during the call) and its sender.
    public var onDatagram: (UnsafeMutableRawBufferPointer, SocketAddress) -> Void = { _, _ in }
    /// Called after each received batch.
    public var onBatchEnd: () -> Void = {}
    /// Called about every `tickInterval` with the current time.
    public var onTick: (ContinuousClock.Instant) -> Void = { _ in }
    /// Asked after each tick (loop thread; set before `start`): while it answers true the next tick
    /// comes after `idleTickInterval`, so a loop with nothing to time (a media worker without
    /// transports) wakes 10 times a second instead of 100. Work handed over with `execute` brings
    /// the next tick back within `tickInterval` at once.
    public var isIdle: () -> Bool = { false }
    public var idleTickInterval: Duration = .milliseconds(100)

    /// The shared thread serving this socket (`SharedUDPLoops`); nil: the loop runs its own thread.
    let host: SharedUDPThread?
    /// When the next tick is due (loop thread).
    var nextTick = ContinuousClock.now
    /// A hosted loop taken off its thread by `stop` (host thread): work still posted is skipped.
    var detached = false
    /// Watched descriptors' handlers, by descriptor (loop thread; see `watch`).
    var extraHandlers: [Int32: (Readiness) -> Void] = [:]

    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let pending = TaskInbox()
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let threadToken = Atomic<UInt>(0)
    private let priorityInForce = Atomic<Int>(-1)
    private var started = false
    // Loop thread only: descriptors polled beside the socket (see `watch`), and a reused list of
    // the ready ones so a handler may watch or unwatch while they are dispatched.
    private var extraFDs: [pollfd] = []
    private var ready: [(fd: Int32, events: Int16)] = []

    /// What `poll` reported for a watched descriptor.
    public struct Readiness: Sendable {
        public var readable: Bool
        public var writable: Bool
        /// Error or hang-up: the descriptor is dead (a read tells how).
        public var hangup: Bool
    }

    /// - Parameters:
    ///   - socket: the socket this loop reads and owns the sends of.
    ///   - tickInterval: the timer granularity; DTLS and ICE need tens of milliseconds at most (a
    ///     shared thread ticks at its own granularity, so a hosted loop's ticks come at multiples of it).
    ///   - loops: serve the socket on one of these shared threads instead of a thread of its own.
    public init(socket: UDPSocket, batchSize: Int = 32, slotSize: Int = 2048,
                sendQueueCapacity: Int = 64, flushThreshold: Int = 16, tickInterval: Duration = .milliseconds(10),
                sharedBy loops: SharedUDPLoops? = nil) throws(NetError) {
        self.socket = socket
        self.tickInterval = tickInterval
        self.flushThreshold = max(1, min(flushThreshold, sendQueueCapacity))
        let host = loops?.next()
        self.host = host
        // A hosted loop reads into its thread's receiver (one set of buffers for all its sockets).
        receiver = UDPBatchReceiver(batchSize: host == nil ? batchSize : 1, slotSize: slotSize)
        sendQueue = UDPSendQueue(capacity: sendQueueCapacity, slotSize: slotSize)
        guard host == nil else {
            // Woken through its thread's eventfd: no pipe of its own.
            wakeRead = -1
            wakeWrite = -1
            return
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .system(call: "pipe", errno: errno) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK) }
    }

    deinit {
        if wakeRead >= 0 { _ = udpCloseDescriptor(wakeRead) }
        if wakeWrite >= 0 { _ = udpCloseDescriptor(wakeWrite) }
    }

    /// Starts the thread. Set the handlers first.
    /// - Parameters:
    ///   - name: the thread's name as `top -H` and `perf` show it (15 bytes at most on Linux).
    ///   - priority: asked for as the thread starts (see `appliedPriority` for what it got).
    public func start(name: String = "srtc-udp", priority: IOThreadPriority = .normal) {
        precondition(!started, "UDPReceiveLoop started twice")
        started = true
        if let host {
            host.attach(self)
            return
        }
        IOThread.start(name: name, priority: priority) { [self] applied in
            priorityInForce.store(IOThreadPriority.allCases.firstIndex(of: applied)!, ordering: .releasing)
            run()
        }
    }

    /// The scheduling priority the thread got (the asked one, or the best below it the kernel
    /// allowed); nil until the thread has started (it is known in any closure it runs).
    public var appliedPriority: IOThreadPriority? {
        if let host { return host.appliedPriority }
        let index = priorityInForce.load(ordering: .acquiring)
        return index < 0 ? nil : IOThreadPriority.allCases[index]
    }

    /// `true` when called on the loop's thread.
    public var isOnLoopThread: Bool {
        if let host { return host.isOnThread }
        return threadToken.load(ordering: .acquiring) == ThreadToken.current()
    }

    /// Queues a datagram that `write` fills (see `UDPSendQueue.enqueue(to:stamp:_:)`), sending
    /// what waits first when the queue is full: a burst longer than the queue within one handler
    /// or one round of `execute` work (fifty data-channel messages handed over at once) goes out
    /// instead of being dropped. Every sender on this socket queues through here. Loop thread only;
    /// `false` when `write` abandoned the slot.
    @discardableResult
    public func send(to address: SocketAddress, stamp: Int64 = 0, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        if sendQueue.isFull { sendQueue.flush(on: socket) }
        return sendQueue.enqueue(to: address, stamp: stamp, write)
    }

    /// `send(to:stamp:_:)` with a copy of `bytes`; `false` when they exceed a slot.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) -> Bool {
        if sendQueue.isFull { sendQueue.flush(on: socket) }
        return sendQueue.enqueue(bytes, to: address)
    }

    /// Runs `work` on the loop thread soon (thread-safe). Runs it inline when already on it.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        if isOnLoopThread { work(); return }
        if let host { return host.execute(for: self, work) }
        pending.post(work)
        wake()
    }

    /// Stops the thread and waits for it to finish (unless called from the loop thread itself).
    public func stop() {
        guard started, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let host { return host.detach(self) }
        wake()
        if !isOnLoopThread { finished.wait() }
    }

    /// From now on the socket is read on its shared thread's sweep timer (`SharedUDPLoops`'s
    /// `sweepInterval`) instead of when it becomes readable: for a load generator's counting
    /// subscribers, whose hundreds of sockets each receive a few hundred datagrams a second; each
    /// would otherwise cost a wake-up, an epoll wait and a `recvmmsg` of one or two datagrams.
    /// Datagrams then wait up to the interval before `onDatagram` sees them. Loop thread only.
    /// - Returns: false for a loop with a thread of its own (it keeps reading on readiness).
    @discardableResult
    public func sweep() -> Bool {
        guard let host else { return false }
        return host.sweep(self)
    }

    /// Polls `fd` on this thread beside the socket (ICE-TCP streams on the media port's thread);
    /// `onReady` runs on the loop thread when it is readable or (with `write`) writable. Loop
    /// thread only; `unwatch` before closing the descriptor.
    public func watch(_ fd: Int32, read: Bool, write: Bool, onReady: @escaping (Readiness) -> Void) {
        unwatch(fd)
        if let host {
            extraHandlers[fd] = onReady
            host.watch(fd, for: self, read: read, write: write)
            return
        }
        extraFDs.append(pollfd(fd: fd, events: Self.events(read: read, write: write), revents: 0))
        extraHandlers[fd] = onReady
    }

    /// Changes what a watched descriptor is polled for. Loop thread only.
    public func setInterest(_ fd: Int32, read: Bool, write: Bool) {
        if let host {
            if extraHandlers[fd] != nil { host.setInterest(fd, read: read, write: write) }
            return
        }
        guard let i = extraFDs.firstIndex(where: { $0.fd == fd }) else { return }
        extraFDs[i].events = Self.events(read: read, write: write)
    }

    /// Stops polling `fd`. Loop thread only.
    public func unwatch(_ fd: Int32) {
        guard extraHandlers.removeValue(forKey: fd) != nil else { return }
        if let host { return host.unwatch(fd) }
        extraFDs.removeAll { $0.fd == fd }
    }

    private static func events(read: Bool, write: Bool) -> Int16 {
        (read ? Int16(POLLIN) : 0) | (write ? Int16(POLLOUT) : 0)
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run() {
        threadToken.store(ThreadToken.current(), ordering: .releasing)
        defer { finished.signal() }
        let clock = ContinuousClock()
        nextTick = clock.now
        var fds = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while !stopping.load(ordering: .acquiring) {
            let timeout = Self.pollTimeout(until: nextTick, now: clock.now)
            fds.removeSubrange(2...)
            fds.append(contentsOf: extraFDs)
            for i in fds.indices { fds[i].revents = 0 }
            _ = poll(&fds, nfds_t(fds.count), timeout)
            if fds[1].revents != 0 { drainWake() }
            if runPending() {
                let soon = clock.now + tickInterval
                if nextTick > soon { nextTick = soon }
            }
            if fds[0].revents != 0 { serviceSocket(with: receiver) }
            if fds.count > 2 { dispatchExtra(fds) }
            tickIfDue(clock.now)
        }
        runPending()
    }

    /// Milliseconds for `poll` until `deadline`, rounded up: a timeout rounded down to 0 ms would
    /// spin until the deadline.
    static func pollTimeout(until deadline: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Int32 {
        let until = deadline - now
        return max(0, Int32(until.components.seconds * 1000
                            + (until.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    /// Reads what waits on the socket into `receiver` (this loop's, or its shared thread's) and
    /// hands each datagram to `onDatagram`, flushing the send queue after each batch. Loop thread.
    func serviceSocket(with receiver: UDPBatchReceiver) {
        // Bounded so timers still run under a flood.
        for _ in 0..<16 {
            let n = receiver.receive(from: socket) { bytes, source in
                onDatagram(bytes, source)
                // What a datagram made go out now, once it is enough for one system call,
                // not after the rest of the batch: a burst of 30 packets fanned out to 50
                // each would otherwise hold the first packet's copies for 29 fan-outs.
                if sendQueue.count >= flushThreshold { sendQueue.flush(on: socket) }
            }
            if n == 0 { break }
            onBatchEnd()
            sendQueue.flush(on: socket)
            if n < receiver.batchSize { break }
        }
    }

    /// Runs `onTick` when it is due. Loop thread.
    func tickIfDue(_ now: ContinuousClock.Instant) {
        guard now >= nextTick else { return }
        onTick(now)
        sendQueue.flush(on: socket)
        nextTick = now + (isIdle() ? idleTickInterval : tickInterval)
    }

    /// After work handed over with `execute`: what it queued goes out, and the next tick comes
    /// within `tickInterval` (the work may have started a timer). Loop thread.
    func afterWork(now: ContinuousClock.Instant) {
        sendQueue.flush(on: socket)
        let soon = now + tickInterval
        if nextTick > soon { nextTick = soon }
    }

    /// A watched descriptor of a hosted loop is ready (its shared thread). Loop thread.
    func dispatchWatched(_ fd: Int32, _ readiness: Readiness) {
        guard let handler = extraHandlers[fd] else { return }
        handler(readiness)
        onBatchEnd()
        sendQueue.flush(on: socket)
    }

    private func dispatchExtra(_ fds: [pollfd]) {
        ready.removeAll(keepingCapacity: true)
        for p in fds[2...] where p.revents != 0 { ready.append((p.fd, p.revents)) }
        guard !ready.isEmpty else { return }
        let hangupBits = Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)
        for (fd, events) in ready {
            // A handler run earlier in this round may have unwatched (and closed) it.
            guard let handler = extraHandlers[fd] else { continue }
            handler(Readiness(readable: events & Int16(POLLIN) != 0, writable: events & Int16(POLLOUT) != 0,
                              hangup: events & hangupBits != 0))
        }
        onBatchEnd()
        sendQueue.flush(on: socket)
    }

    private func drainWake() {
        // On the stack: a wake-up allocates nothing.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { scratch in
            while read(wakeRead, scratch.baseAddress, 64) > 0 {}
        }
    }

    /// Runs the closures handed over so far (checked on every loop iteration: no allocation, no
    /// copy) and sends what they queued. Returns whether it ran any.
    @discardableResult
    private func runPending() -> Bool {
        guard pending.run() else { return false }
        sendQueue.flush(on: socket)
        return true
    }
}
