// CPU time as the benchmarks read it: this thread's, this process's, or another process's
// (a server the benchmark started), all in microseconds.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

enum CPUTime {
    /// CPU time of the calling thread.
    static func thread() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) * 1e6 + Double(spec.tv_nsec) / 1000
    }

    /// User + system CPU time of this process.
    static func process() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    }

    /// CPU time of every thread of process `pid`, from the scheduler's nanosecond counters
    /// (`/proc/<pid>/task/*/schedstat`, first field), falling back to `/proc/<pid>/stat`'s
    /// clock ticks; nil when the process is gone.
    static func process(pid: Int32) -> Double? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0.0
        var read = 0
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                  let first = text.split(separator: " ").first, let nanoseconds = Double(first) else { continue }
            total += nanoseconds / 1000
            read += 1
        }
        if read > 0 { return total }
        // utime and stime are fields 14 and 15, counted after the ")" that ends the command name.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) * 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
