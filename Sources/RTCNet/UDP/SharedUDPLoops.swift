import Foundation
import Synchronization

/// A few threads that serve many UDP sockets: each socket's `UDPReceiveLoop` (made with
/// `sharedBy:`) is served by one of them, picked round-robin, instead of a thread of its own.
///
/// For a load generator's client transports: hundreds of subscribers each on their own thread
/// meant hundreds of threads, a `poll` wake-up per socket per packet burst, and DTLS handshakes
/// starved past their deadline while hundreds of threads competed for two cores. Here one epoll
/// thread per core reads every ready socket with `recvmmsg` into one set of buffers and ticks
/// every socket's timers from one timer (`SharedUDPThread`). An ordinary client (the SDK) keeps a
/// thread of its own: it has one or two sockets, and its latency does not wait behind others'.
public final class SharedUDPLoops: Sendable {
    /// The threads, each with its own epoll set.
    let threads: [SharedUDPThread]
    private let cursor = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// Starts `threadCount` threads (default: one per core).
    /// - Parameters:
    ///   - tickInterval: how often each thread looks at its sockets' timers (each socket's own
    ///     `tickInterval` is honoured to this granularity).
    ///   - sweepInterval: how often each thread drains the sockets of its loops that sweep
    ///     (`UDPReceiveLoop.sweep()`): a datagram waits up to this long in its socket.
    ///   - name: the threads' name prefix (`top -H`, `perf`), followed by the index.
    public init(threadCount: Int = ProcessInfo.processInfo.activeProcessorCount, tickInterval: Duration = .milliseconds(10),
                sweepInterval: Duration = .milliseconds(5), name: String = "srtc-udp-shared",
                priority: IOThreadPriority = .normal) throws(NetError) {
        var threads: [SharedUDPThread] = []
        for i in 0..<max(1, threadCount) {
            do {
                threads.append(try SharedUDPThread(index: i, tickInterval: tickInterval, sweepInterval: sweepInterval,
                                                   name: "\(name.prefix(12))-\(i)", priority: priority))
            } catch {
                for thread in threads { thread.stop() }
                throw error
            }
        }
        self.threads = threads
    }

    public var threadCount: Int { threads.count }

    /// Sockets each thread serves now (for tests and reports; a snapshot).
    public var socketsPerThread: [Int] { threads.map(\.socketCount) }

    /// Sockets each thread sweeps now (`UDPReceiveLoop.sweep()`; a snapshot, for tests and reports).
    public var sweptSocketsPerThread: [Int] { threads.map(\.sweptSocketCount) }

    /// The next thread in round-robin order.
    func next() -> SharedUDPThread {
        let i = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return threads[(i & Int.max) % threads.count]
    }

    /// Stops every thread. Sockets still attached are abandoned (their loops' `stop` then returns
    /// at once), so close their transports first. Idempotent; not from one of the group's threads.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for thread in threads { thread.stop() }
    }

    deinit { shutdown() }
}
