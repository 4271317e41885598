// Where the two cores went over a window of the capacity search (docs/benchmarks.md, "Capacity:
// where the CPU goes"): the server's threads one by one (each media worker's thread on its own),
// the load generator's threads by name, the kernel's softirq threads, every other process, and
// the machine's own split of its ticks (softirq, steal, idle). On loopback the receiver's kernel
// path runs in the sender's softirq and, without CONFIG_IRQ_TIME_ACCOUNTING (this VM's kernel),
// is charged to the sending thread: a server thread's figure includes the delivery of its copies.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

struct CPUAccounting {
    /// CPU time per thread name of one process, µs (threads of the same name summed).
    var server: [String: Double] = [:]
    var generator: [String: Double] = [:]
    /// Time the threads were runnable but waited for a core (schedstat's second field), µs, per
    /// process: a thread that waits is one the machine's other work delayed.
    var serverWaited = 0.0, generatorWaited = 0.0
    /// The generator's finished children (`nft` reading the counters), µs.
    var generatorChildren = 0.0
    /// `ksoftirqd/N` together, µs: softirq work the kernel deferred to its own threads.
    var softirqThreads = 0.0
    /// `/proc/stat`'s aggregate line: user nice system idle iowait irq softirq steal, ticks.
    var machineTicks: [Int64] = []
    var at = 0.0

    /// Reads everything now.
    static func now(server pid: Int32) -> CPUAccounting {
        var reading = CPUAccounting()
        (reading.server, reading.serverWaited) = threads(of: pid)
        (reading.generator, reading.generatorWaited) = threads(of: getpid())
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        reading.generatorChildren = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        reading.softirqThreads = softirqPids.reduce(0) { $0 + threads(of: $1).cpu.values.reduce(0, +) }
        if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) {
            reading.machineTicks = Array(line.split(separator: " ").dropFirst().prefix(8).compactMap { Int64($0) })
        }
        reading.at = Date().timeIntervalSinceReferenceDate
        return reading
    }

    /// The pids of the kernel's `ksoftirqd/N` threads, found once.
    static let softirqPids: [Int32] = {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry), let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                  comm.hasPrefix("ksoftirqd/") else { return nil }
            return pid
        }
    }()

    /// Each thread name's CPU time in process `pid`, µs, from the scheduler's nanosecond counter
    /// (`/proc/<pid>/task/<tid>/schedstat`, first field), and the time all its threads waited
    /// runnable for a core (second field).
    static func threads(of pid: Int32) -> (cpu: [String: Double], waited: Double) {
        var byName: [String: Double] = [:]
        var waited = 0.0
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let schedstat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                  let first = schedstat.split(separator: " ").first, let nanoseconds = Double(first) else { continue }
            waited += schedstat.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 / 1000 } ?? 0
            let name = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            byName[name, default: 0] += nanoseconds / 1000
        }
        return (byName, waited)
    }

    /// The window from `earlier` to this reading, in cores (CPU-seconds per second).
    struct Window {
        var seconds = 0.0
        var server: [(name: String, cores: Double)] = []
        var generator: [(name: String, cores: Double)] = []
        var softirqThreads = 0.0
        /// Runnable but waiting for a core, in cores (thread-seconds per second), per process.
        var serverWaited = 0.0, generatorWaited = 0.0
        /// The generator's `nft` children, in cores.
        var generatorChildren = 0.0
        /// Of the machine's ticks, in cores: all busy (steal included), softirq, steal, idle.
        var busy = 0.0, softirq = 0.0, steal = 0.0, idle = 0.0

        var serverTotal: Double { server.reduce(0) { $0 + $1.cores } }
        var generatorTotal: Double { generator.reduce(0) { $0 + $1.cores } }
        /// The server's media worker threads (`srtc-media-N`), one figure each.
        var mediaThreads: [Double] { server.filter { $0.name.hasPrefix("srtc-media-") }.map(\.cores) }
        /// Busy time of every other process of the machine (other sessions' builds and tests), steal not included.
        var others: Double { max(0, busy - steal - serverTotal - generatorTotal - generatorChildren - softirqThreads) }

        /// One line: server threads, generator threads, softirq threads, others, the machine's ticks.
        var line: String {
            func list(_ entries: [(name: String, cores: Double)], total: Double) -> String {
                // Names with at least 0.02 cores; the rest together.
                let shown = entries.filter { $0.cores >= 0.02 }.sorted { $0.name < $1.name }
                let rest = total - shown.reduce(0) { $0 + $1.cores }
                return (shown.map { String(format: "%@ %.2f", $0.name, $0.cores) } + (rest >= 0.005 ? [String(format: "rest %.2f", rest)] : []))
                    .joined(separator: ", ")
            }
            return String(format: "cores: server %.2f (", serverTotal) + list(server, total: serverTotal) + ")"
                + String(format: ", waited %.2f", serverWaited)
                + String(format: " | generator %.2f (", generatorTotal) + list(generator, total: generatorTotal)
                + String(format: "), waited %.2f, nft %.2f", generatorWaited, generatorChildren)
                + String(format: " | ksoftirqd %.2f | other processes %.2f | machine busy %.2f of which softirq ticks %.2f, steal %.2f; idle %.2f",
                         softirqThreads, others, busy, softirq, steal, idle)
        }
    }

    func window(since earlier: CPUAccounting) -> Window {
        var window = Window()
        window.seconds = at - earlier.at
        guard window.seconds > 0 else { return window }
        func cores(_ now: [String: Double], _ before: [String: Double]) -> [(name: String, cores: Double)] {
            now.map { (name: $0.key, cores: max(0, $0.value - (before[$0.key] ?? 0)) / 1e6 / window.seconds) }
        }
        window.server = cores(server, earlier.server)
        window.generator = cores(generator, earlier.generator)
        window.softirqThreads = max(0, softirqThreads - earlier.softirqThreads) / 1e6 / window.seconds
        window.serverWaited = max(0, serverWaited - earlier.serverWaited) / 1e6 / window.seconds
        window.generatorWaited = max(0, generatorWaited - earlier.generatorWaited) / 1e6 / window.seconds
        window.generatorChildren = max(0, generatorChildren - earlier.generatorChildren) / 1e6 / window.seconds
        if machineTicks.count == 8, earlier.machineTicks.count == 8 {
            let delta = zip(machineTicks, earlier.machineTicks).map { Double($0 - $1) }
            let total = delta.reduce(0, +)
            if total > 0 {
                // Ticks to cores: the share of all ticks times the core count.
                let scale = Double(ProcessInfo.processInfo.activeProcessorCount) / total
                window.idle = (delta[3] + delta[4]) * scale
                window.busy = (total - delta[3] - delta[4]) * scale
                window.softirq = delta[6] * scale
                window.steal = delta[7] * scale
            }
        }
        return window
    }
}
