import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `srtc-egress` worker processes of a server, found in `/proc` (Linux): the tests kill and
/// count them, the benchmarks read their memory.
public enum EgressWorkers {
    /// The pids of `parent`'s `srtc-egress` children (by default the workers of an in-process server).
    public static func pids(parent: Int32 = getpid()) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return false }
            let name = stat[stat.index(after: open)..<close]
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            return name == "srtc-egress" && fields.count > 1 && Int32(fields[1]) == parent
        }
    }

    /// A field of `/proc/<pid>/status` in KiB (`VmRSS`: resident now, `VmHWM`: the peak); nil
    /// when the process is gone.
    public static func memoryKiB(pid: Int32, field: String = "VmRSS") -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
}
