// The capacity search of `make bench-sfu` (`SRTC_SFU_LOAD_ONLY=capacity`, docs/benchmarks.md,
// "Capacity search"): per server configuration, rooms of five (each publishes and subscribes to
// the other four) are added to one running load, 10 × 5 first, until a window loses more than
// 0.5 % or its e2e p99 reaches 50 ms; the last step within both is the configuration's capacity.
// The subscribers are counting-only (`LoadSubscriber(countingOnly:)`): they decrypt nothing and
// are drained every few ms; once its streams started, a subscriber's RTP is counted and dropped
// by nftables on the loopback device's ingress (`KernelPacketCounter`) but for one probe in 25,
// which keeps reading for the e2e delays, so the generator costs little beside the server.
import Foundation
import SRTCLoad

extension SFULoadBench {
    /// One configuration the search runs: a fresh target per search (a Janus HTTP session left
    /// idle through the other configurations' searches expires: `458 No such session`).
    typealias CapacityConfiguration = (label: String, makeTarget: () -> any LoadTarget, pid: Int32, metricsURL: String?)

    /// The room counts the search steps through (`SRTC_SFU_LOAD_CAPACITY_ROOMS`, ascending).
    static let capacitySteps: [Int] = {
        let text = ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_CAPACITY_ROOMS"]
            ?? "10,20,30,35,40,45,50,55,60,65,70,75,80,90,100,110,120"
        return text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }.sorted()
    }()
    /// Who is in each room (`SRTC_SFU_LOAD_CAPACITY_ROOM`, `publishers+subscribers`, default
    /// `5+0`: every participant publishes and receives the other four). A room of many
    /// subscribers (`4+46`) spreads each packet a publisher sends over more deliveries, so the
    /// generator's sending side costs less per delivered packet.
    static let capacityRoom: (publishers: Int, subscribers: Int) = {
        let parts = (ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_CAPACITY_ROOM"] ?? "5+0").split(separator: "+").compactMap { Int($0) }
        return parts.count == 2 && parts[0] > 0 && parts[1] >= 0 ? (parts[0], parts[1]) : (5, 0)
    }()
    /// Searches per configuration, interleaved (`SRTC_SFU_LOAD_CAPACITY_RUNS`): run 1 of each
    /// configuration, then run 2 of each, so slow drift of the machine's other load hits all.
    static let capacityRuns = Int(ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_CAPACITY_RUNS"] ?? "") ?? 2
    /// Seconds of each step's window (`SRTC_SFU_LOAD_CAPACITY_SECONDS`).
    static let capacityWindow = Double(ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_CAPACITY_SECONDS"] ?? "") ?? 5
    /// Where the subscribers' RTP is counted and dropped (`SRTC_SFU_LOAD_KERNEL_COUNT`: `ingress`,
    /// the default as root with nft; `input`; `off`: every subscriber reads its socket).
    static let kernelCounting: KernelPacketCounter.Hook? = {
        let text = ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_KERNEL_COUNT"] ?? "ingress"
        guard KernelPacketCounter.isAvailable else { return nil }
        return KernelPacketCounter.Hook(rawValue: text)
    }()
    /// One subscriber in this many keeps reading its socket for the e2e delays
    /// (`SRTC_SFU_LOAD_PROBE_EVERY`).
    static let probeEvery = Int(ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_PROBE_EVERY"] ?? "") ?? 25
    /// The limits a step must keep (the issue's): loss, e2e p99 (ms).
    static let capacityLossLimit = 0.005, capacityP99Limit = 50.0

    /// One search of one configuration.
    struct CapacityResult {
        var server: String
        var run: Int
        var steps: [Row] = []
        /// The last step within the limits.
        var best: Row?
        /// Why the search stopped (the first step past a limit, or an error); nil: it ran out of steps.
        var stop: String?
    }

    /// Why `row` is past the limits, or nil when it is within them.
    static func capacityFailure(_ row: Row) -> String? {
        guard let report = row.report else { return row.error ?? "no report" }
        if !report.failures.isEmpty { return "\(report.failures.count) failure(s): \(report.failures.last!)" }
        let loss = 1 - min(1, report.delivery)
        if report.packetsReceived == 0 || loss > capacityLossLimit { return String(format: "lost %.2f%%", 100 * loss) }
        if report.latency.p99 >= capacityP99Limit { return String(format: "e2e p99 %.1f ms", report.latency.p99) }
        return nil
    }

    /// Raises the load on one server until a step is past the limits.
    func capacitySearch(label: String, target: any LoadTarget, pid: Int32, metricsURL: String?, run index: Int) async -> CapacityResult {
        var result = CapacityResult(server: label, run: index)
        guard let first = Self.capacitySteps.first else { return result }
        let run: LoadRun
        do {
            let room = Self.capacityRoom
            run = try await LoadRun(scenario: LoadScenario(rooms: first, publishers: room.publishers, subscribers: room.subscribers, joinRate: 100),
                                    target: target,
                                    countingOnly: true, kernelCounting: Self.kernelCounting, probeEvery: Self.probeEvery)
        } catch {
            result.stop = "\(error)"
            return result
        }
        for rooms in Self.capacitySteps {
            do {
                if rooms == first { try await run.setUp() } else { try await run.addRooms(rooms - run.scenario.rooms) }
            } catch {
                result.stop = "\(rooms) rooms × \(Self.roomLabel): \(error)"
                break
            }
            try? await Task.sleep(for: .seconds(warmUp))
            var row = Row(scenario: "\(rooms) rooms × \(Self.roomLabel)", server: label, participants: rooms * run.scenario.participantsPerRoom)
            row.countingOnly = true
            row.sharedThreads = run.sharedLoops?.threadCount ?? 0
            _ = await measureWindow(run, seconds: Self.capacityWindow, into: &row, pid: pid, metricsURL: metricsURL)
            print("   capacity run \(index): " + Self.progressLine(row))
            if let accounting = row.accounting {
                // The server's own forwarding p99 beside the e2e one: a p99 past the limit with the server's
                // small was spent outside it (the generator's threads waiting for a core).
                print("     " + accounting.line + (row.forwardingP99.map { $0.isFinite ? "; server fwd p99 ≤\($0) ms" : "; server fwd p99 >10 ms" } ?? ""))
            }
            result.steps.append(row)
            if let failure = Self.capacityFailure(row) {
                result.stop = "\(row.scenario): \(failure)"
                break
            }
            result.best = row
        }
        await run.tearDown()
        return result
    }

    /// Every configuration's search, `capacityRuns` times, interleaved; then the table.
    func runCapacitySearch(_ configurations: [CapacityConfiguration]) async {
        print("== capacity search: rooms of \(Self.roomLabel) at \(Self.capacitySteps.map(String.init).joined(separator: ", ")) rooms, "
              + "\(Self.capacityWindow) s windows after \(warmUp) s warm-up, counting-only subscribers, \(Self.capacityRuns) run(s) interleaved; "
              + Self.countingNote)
        var results: [CapacityResult] = []
        for index in 1...max(1, Self.capacityRuns) {
            for configuration in configurations {
                results.append(await capacitySearch(label: configuration.label, target: configuration.makeTarget(), pid: configuration.pid,
                                                    metricsURL: configuration.metricsURL, run: index))
            }
        }
        print(Self.capacityTable(results))
    }

    /// `5` for the default room, else `4+46`.
    static var roomLabel: String {
        capacityRoom.subscribers == 0 ? "\(capacityRoom.publishers)" : "\(capacityRoom.publishers)+\(capacityRoom.subscribers)"
    }

    /// How the subscribers count, for the output.
    static var countingNote: String {
        let sockets = "no SRTP decryption, sockets drained every 5 ms by recvmmsg, RTP headers counted"
        guard let hook = kernelCounting else { return sockets }
        return "RTP counted and dropped by nftables at the \(hook == .ingress ? "lo ingress" : "inet input") hook "
            + "but for 1 probe subscriber in \(probeEvery) (\(sockets); its e2e delays are the p99)"
    }

    static func capacityTable(_ results: [CapacityResult]) -> String {
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
        }
        func left(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        var lines = ["", "Capacity: the most packets per second delivered with ≤ 0.5 % loss and e2e p99 < 50 ms, raising the load by rooms of " + roomLabel + ";",
                     "subscribers counting-only: " + countingNote,
                     left("server", 8) + pad("run", 4) + pad("capacity", 10) + left("  at", 20) + pad("server cores", 13)
                        + pad("gen µs/pkt", 11) + pad("gen cores", 10) + pad("p99 ms", 8) + pad("loss", 8) + "  stopped by"]
        for result in results {
            var line = left(result.server, 8) + pad("\(result.run)", 4)
            if let best = result.best, let report = best.report {
                line += pad(String(format: "%.0f", report.receiveRate), 10) + left("  " + best.scenario, 20)
                    + pad(String(format: "%.2f", best.cpu / 1e6 / report.seconds), 13)
                    + pad(String(format: "%.2f", best.generatorCPUPerPacket), 11)
                    + pad(String(format: "%.2f", best.generatorCPU / 1e6 / report.seconds), 10)
                    // No samples: the delay rode in the encrypted RTP padding (a server without abs-capture-time, Janus).
                    + pad(report.latency.samples == 0 ? "–" : String(format: "%.2f", report.latency.p99), 8)
                    + pad(String(format: "%.2f%%", 100 * (1 - min(1, report.delivery))), 8)
            } else {
                line += pad("none", 10) + left("", 20) + String(repeating: " ", count: 50)
            }
            lines.append(line + "  " + (result.stop ?? "ran out of steps (a floor)"))
        }
        // Where the cores went at each search's capacity step and at the step that stopped it.
        lines.append("where the cores went (server threads one by one, generator threads by name, other processes, /proc/stat's ticks):")
        for result in results {
            if let best = result.best, let accounting = best.accounting {
                lines.append("  \(result.server) run \(result.run), \(best.scenario) (capacity): " + accounting.line)
            }
            if result.stop != nil, let last = result.steps.last, last.scenario != result.best?.scenario, let accounting = last.accounting {
                lines.append("  \(result.server) run \(result.run), \(last.scenario) (stopped): " + accounting.line)
            }
        }
        // The 2-worker gain, run by run, and against Janus.
        func best(_ server: String, _ run: Int) -> Double? {
            results.first { $0.server == server && $0.run == run }?.best?.report?.receiveRate
        }
        let runs = Set(results.map(\.run)).sorted()
        var ratios: [String] = []
        for run in runs {
            if let one = best("srtc×1", run), let two = best("srtc×2", run) {
                ratios.append(String(format: "%.2f× (run %d)", two / one, run))
            }
        }
        if !ratios.isEmpty { lines.append("2 workers / 1 worker: " + ratios.joined(separator: ", ")) }
        var janus: [String] = []
        for run in runs {
            if let two = best("srtc×2", run), let other = best("janus", run) { janus.append(String(format: "%.2f× (run %d)", two / other, run)) }
        }
        if !janus.isEmpty { lines.append("2 workers / Janus (event_loops = 2): " + janus.joined(separator: ", ")) }
        lines.append("capacity: delivered pkt/s of the last step within both limits; server cores: its whole-process CPU over that")
        lines.append("step's window; gen: the load generator's own CPU (this process: publishers, counting subscribers, pacer) per")
        lines.append("delivered packet and in cores; stopped by: the first step past a limit; p99 –: no delay measured (the send")
        lines.append("time rides in the encrypted RTP padding when the server does not forward abs-capture-time: loss alone bounds it).")
        return lines.joined(separator: "\n")
    }
}
