#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How an I/O thread asks the kernel to schedule it against the other threads of the machine.
///
/// Forwarding latency on a shared machine is mostly waiting for the CPU: each datagram an SFU
/// sends wakes its receiver, and under the default policy a woken thread may preempt the sender
/// in the middle of a fan-out (measured with `srtc load-test` 1→50 beside its 50 subscriber
/// threads on two cores: hundreds of involuntary switches a second and an arrival-to-send p99
/// over 5 ms). A higher priority keeps the fan-out running to its end.
///
/// - `normal`: the default policy, as the thread was created.
/// - `high`: the default policy at nice −10 (Linux): wake-ups of nice-0 threads still run, but
///   rarely in the middle of a batch.
/// - `realtime`: `SCHED_FIFO` at priority 10 (Linux): no thread of the default policy preempts
///   it. Linux keeps 5 % of each second for those (`kernel.sched_rt_runtime_us`) even if the
///   thread were always busy, and the thread sleeps in `poll` between batches.
///
/// Raising needs `CAP_SYS_NICE` (root) or a matching `RLIMIT_NICE` / `RLIMIT_RTPRIO`; a thread
/// that may not gets the best level it may (`realtime` falls back to `high`, then `normal`).
public enum IOThreadPriority: String, Sendable, CaseIterable, Comparable {
    case normal, high, realtime

    /// nice value of `high`.
    static let highNice: Int32 = -10
    /// `SCHED_FIFO` priority of `realtime`: below the kernel's threaded interrupt handlers (50),
    /// which must still run for datagrams to arrive.
    static let realtimePriority: Int32 = 10

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Applies the priority to the calling thread, or the best level below it the kernel allows.
    /// - Returns: the level in force.
    @discardableResult
    public func applyToCurrentThread() -> IOThreadPriority {
        #if os(Linux)
        if self == .realtime {
            var parameters = sched_param()
            parameters.sched_priority = Self.realtimePriority
            if pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0 { return .realtime }
        }
        // Linux keeps nice per thread: PRIO_PROCESS with 0 is the calling thread.
        if self >= .high, setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.highNice) == 0 { return .high }
        return .normal
        #else
        return .normal
        #endif
    }
}
