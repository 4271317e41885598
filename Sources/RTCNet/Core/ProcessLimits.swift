#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's descriptor limit (RLIMIT_NOFILE), which bounds how many connections a server can
/// hold: every TCP connection is one descriptor.
///
/// Service managers start processes with a low soft limit (systemd: 1,024) under a much higher
/// hard limit, and leave raising it to programs that need more (the soft limit exists for
/// programs still using `select(2)`, which we do not).
public enum ProcessLimits {
    /// The soft and hard open-file limits now.
    public static func openFiles() -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { return (1024, 1024) }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft open-file limit to the hard limit (on macOS, to `OPEN_MAX` when the hard
    /// limit is unlimited, as the kernel refuses more).
    /// - Returns: the soft limit before and after; equal when it was already at the hard limit or
    ///   the kernel refused.
    @discardableResult
    public static func raiseOpenFileLimit() -> (previous: UInt64, current: UInt64) {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { return (1024, 1024) }
        let previous = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (previous, previous) }
        #if canImport(Darwin)
        limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? rlim_t(OPEN_MAX) : limit.rlim_max
        #else
        limit.rlim_cur = limit.rlim_max
        #endif
        guard setrlimit(resourceNoFile, &limit) == 0 else { return (previous, previous) }
        return (previous, openFiles().soft)
    }

    #if canImport(Glibc)
    private static let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNoFile = RLIMIT_NOFILE
    #endif
}
