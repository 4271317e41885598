#if os(Linux)
import Glibc
#endif

/// Reads the Linux kernel's process and system counters (proc(5)) the performance events are
/// computed from. The parsing is plain text handling, tested on every platform; only `snapshot()`
/// reads /proc, and only on Linux. `srtc-bench sfu-load` reads the machine's CPU with `systemTicks`.
package enum ProcStatReader {
    /// One reading of the counters.
    struct Snapshot: Sendable, Equatable {
        /// CPU time this process used, user + system, in clock ticks (`/proc/self/stat` fields 14, 15).
        var processTicks: Int64
        /// CPU time of the whole system, busy and in total, in clock ticks (first line of `/proc/stat`).
        var systemBusyTicks: Int64
        var systemTotalTicks: Int64
        /// Resident set, in pages (`/proc/self/statm` field 2).
        var residentPages: Int64
    }

    /// The user + system ticks of a `/proc/<pid>/stat` line. The command name (field 2) is in
    /// parentheses and may itself hold spaces and parentheses, so fields are counted after the
    /// last `)`. Nil for text that is not such a line.
    static func processTicks(stat text: String) -> Int64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is the first; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 13, let user = Int64(fields[11]), let system = Int64(fields[12]), user >= 0, system >= 0 else { return nil }
        return user.addingReportingOverflow(system).overflow ? nil : user + system
    }

    /// Busy and total ticks from `/proc/stat`'s aggregate `cpu` line (user nice system idle iowait
    /// irq softirq steal …; idle and iowait are not busy; guest time is already in user).
    package static func systemTicks(stat text: String) -> (busy: Int64, total: Int64)? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let values = line.split(separator: " ").dropFirst().prefix(8).compactMap { Int64($0) }
        guard values.count >= 4, values.allSatisfy({ $0 >= 0 && $0 < Int64.max / 16 }) else { return nil }
        let total = values.reduce(0, +)
        let idle = values[3] + (values.count > 4 ? values[4] : 0)
        return (total - idle, total)
    }

    /// The resident pages of a `/proc/<pid>/statm` line (size resident shared text lib data dt).
    static func residentPages(statm text: String) -> Int64? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, let pages = Int64(fields[1]), pages >= 0 else { return nil }
        return pages
    }

    /// Reads the three files now; nil where /proc is missing or unreadable (non-Linux systems).
    static func snapshot() -> Snapshot? {
        #if os(Linux)
        guard let process = read("/proc/self/stat").flatMap({ processTicks(stat: $0) }),
              let system = read("/proc/stat").flatMap({ systemTicks(stat: $0) }),
              let pages = read("/proc/self/statm").flatMap({ residentPages(statm: $0) }) else { return nil }
        return Snapshot(processTicks: process, systemBusyTicks: system.busy, systemTotalTicks: system.total, residentPages: pages)
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// A /proc file's text (its size is not known in advance: read until the end).
    private static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > 65_536 { break }   // the first line of /proc/stat is all we need
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    #endif
}
