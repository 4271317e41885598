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

    /// Of `parent`'s workers, the one with a socket on local `port` (TCP listening or connected, UDP):
    /// an ingress's worker, told apart from the workers of tests running beside it.
    public static func pid(boundTo port: UInt16, parent: Int32 = getpid()) -> Int32? {
        // /proc/net/{tcp,udp}[6]: "sl local_address rem_address st … inode", addresses as HEXIP:HEXPORT.
        let portHex = String(format: ":%04X", port)
        var inodes: Set<String> = []
        for table in ["tcp", "tcp6", "udp", "udp6"] {
            // Read to the end: a procfs table states no size, and a single read returns one page
            // of it (make test's light pass had ours past the first page).
            guard let data = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/\(table)")).readToEnd() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")
                guard f.count > 9, f[1].hasSuffix(portHex) else { continue }
                inodes.insert("socket:[\(f[9])]")
            }
        }
        guard !inodes.isEmpty else { return nil }
        return pids(parent: parent).first { pid in
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return fds.contains { fd in (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")).map(inodes.contains) ?? false }
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
