// `make bench-sfu` (`srtc-bench sfu-load`): the same load against our release server and Janus
// VideoRoom (Debian's Janus 1.1, `event_loops = 2`), each started here in its own process on
// loopback. The load comes from this process (`SRTCLoad`: pre-encoded VP8 and Opus, subscribers
// that decode nothing); each server's whole-process CPU is read from /proc over the window, and a
// bare `sendmmsg` loop sends the same datagrams to the same subscriber sockets for the kernel's
// floor. Figures are printed, never asserted.
import Foundation
import RTCMedia
import SRTCLoad

/// Runs every scenario against both servers and prints one table.
func runSFULoadBenchmarks() {
    do { try blocking { try await SFULoadBench().run() } } catch { print("sfu-load benchmark failed: \(error)") }
}

struct SFULoadBench {
    static let appId = "app_bench", appKey = "key_bench_0123456789"
    /// Our server's `--media-thread-priority` (`SRTC_SFU_LOAD_PRIORITY`, default `realtime`).
    static let mediaThreadPriority = ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_PRIORITY"] ?? "realtime"
    /// Seconds measured per scenario and server (`SRTC_SFU_LOAD_SECONDS`).
    let window = Double(ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_SECONDS"] ?? "") ?? 10
    let warmUp = 2.0
    /// Which servers run (`SRTC_SFU_LOAD_SERVERS="srtc"` to iterate on ours alone; default both).
    static let servers = Set((ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_SERVERS"] ?? "srtc,janus")
        .split(separator: ",").map(String.init))
    /// Our server's executable (`SRTC_SFU_LOAD_SERVER`, to compare a kept build; default the
    /// `srtc-server` beside this binary).
    static let serverExecutable = ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_SERVER"]
    /// Our server's `--media-workers`, one server per count, each measured at every scenario
    /// (`SRTC_SFU_LOAD_WORKERS`, default "1,2"); its rows are named `srtc×N`.
    static let workerCounts = (ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_WORKERS"] ?? "1,2")
        .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }

    /// The scenarios of the issue; `SRTC_SFU_LOAD_ONLY="1→50,idle"` picks some by name, and
    /// `capacity` there runs the capacity search (`SFUCapacitySearch.swift`) after them.
    static let scenarios: [(name: String, scenario: LoadScenario, media: Bool)] = [
        ("1→8", LoadScenario(publishers: 1, subscribers: 8, joinRate: 100), true),
        ("1→50", LoadScenario(publishers: 1, subscribers: 50, joinRate: 100), true),
        // Scalable streams beside simulcast (issue 30): subscribers take the best layer; the VP8
        // publisher sends two simulcast layers, the AV1 and VP9 ones a single L2T3_KEY stream (ours only).
        ("1→50 VP8 sim", LoadScenario(publishers: 1, subscribers: 50, simulcast: true, joinRate: 100), true),
        ("1→50 AV1 SVC", LoadScenario(publishers: 1, subscribers: 50, simulcast: true, joinRate: 100, videoCodec: "av1"), true),
        ("1→50 VP9 SVC", LoadScenario(publishers: 1, subscribers: 50, simulcast: true, joinRate: 100, videoCodec: "vp9"), true),
        ("1→200", LoadScenario(publishers: 1, subscribers: 200, joinRate: 100), true),
        ("10 rooms × 5", LoadScenario(rooms: 10, publishers: 5, subscribers: 0, joinRate: 100), true),
        ("50 rooms × 2", LoadScenario(rooms: 50, publishers: 2, subscribers: 0, joinRate: 100), true),
        ("idle 50 × 2", LoadScenario(rooms: 50, publishers: 2, subscribers: 0, joinRate: 100), false),
    ]

    /// Heavier loads toward a configuration's capacity (docs/benchmarks.md, "Capacity"): run only
    /// when named in `SRTC_SFU_LOAD_ONLY` ("20 rooms × 5,30 rooms × 5,40 rooms × 5,1→400"). Their
    /// subscribers count datagrams from the clear RTP header and decrypt one in
    /// `capacityDecryptionInterval`, so the generator costs less than the server it loads.
    static let capacityScenarios: [(name: String, scenario: LoadScenario, media: Bool)] = [20, 30, 40].map {
        ("\($0) rooms × 5", LoadScenario(rooms: $0, publishers: 5, subscribers: 0, joinRate: 100), true)
    } + [300, 400].map { ("1→\($0)", LoadScenario(publishers: 1, subscribers: $0, joinRate: 200), true) }
    static let capacityDecryptionInterval = 16
    /// The capacity rows' participants share this many I/O threads (`LoadRun(sharedReceiveThreads:)`,
    /// `SRTC_SFU_LOAD_SHARED_IO`, default one per core; 0: a thread per transport, as before): a
    /// thread per transport made the generator the limit (docs/benchmarks.md, "Capacity").
    static let capacitySharedThreads = Int(ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_SHARED_IO"] ?? "")
        ?? ProcessInfo.processInfo.activeProcessorCount

    /// One scenario on one server.
    struct Row {
        var scenario: String
        var server: String
        var report: LoadReport?
        var error: String?
        /// Server CPU over the window, µs.
        var cpu = 0.0
        /// This process's CPU over the window (the load generator: publishers, subscribers, pacer), µs.
        var generatorCPU = 0.0
        /// Subscribers decrypted one RTP packet in this many.
        var decryptionInterval = 1
        /// The participants' transports shared this many I/O threads (0: a thread each).
        var sharedThreads = 0
        /// Counting-only subscribers (the capacity search).
        var countingOnly = false
        var floor = 0.0
        var participants = 0
        /// Our server's forwarding p99 over the window (a packet's arrival in the SFU to the return of
        /// the `sendmmsg` that sent each copy), ms, as a histogram bound; nil for Janus.
        var forwardingP99: Double?
        /// The scenario sends media (not an idle run).
        var media = true
        /// Cores busy over the window, every process of the machine together.
        var machineBusyCores = 0.0
        /// Datagrams the kernel dropped at full UDP receive buffers over the window.
        var receiveBufferDrops: Int64 = 0
        /// Datagrams that arrived for closed UDP ports over the window.
        var closedPortDrops: Int64 = 0
        /// Packets per second our server forwarded (its /metrics, published every second, read
        /// about a second around the window); nil for Janus.
        var forwardedRate: Double?
        /// Where the cores went over the window, thread by thread (`CPUAccounting`).
        var accounting: CPUAccounting.Window?

        var cpuPerPacket: Double { cpu / Double(max(1, report?.packetsReceived ?? 0)) }
        var generatorCPUPerPacket: Double { generatorCPU / Double(max(1, report?.packetsReceived ?? 0)) }
        var packetsPerCPUSecond: Double { Double(report?.packetsReceived ?? 0) / max(1e-9, cpu / 1e6) }
        /// Share of one core per joined participant, %.
        var idleShare: Double { 100 * cpu / 1e6 / max(0.001, report?.seconds ?? 1) / Double(max(1, participants)) }
    }

    func run() async throws {
        let only = ProcessInfo.processInfo.environment["SRTC_SFU_LOAD_ONLY"].map { Set($0.split(separator: ",").map(String.init)) }
        let chosen = Self.scenarios.filter { only?.contains($0.name) ?? true }
            + Self.capacityScenarios.filter { only?.contains($0.name) ?? false }
        print("== sfu-load: \(window) s windows after \(warmUp) s warm-up; loopback, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        let media = try await LoadMedia.shared()
        if chosen.contains(where: { $0.scenario.videoCodec == "av1" }) {
            let av1 = try media.scalableAV1()
            print("   AV1 L2T3_KEY 640×360 + 320×180: \(av1.bitrate / 1000) kbit/s (\(Int(av1.packetRate)) pkt/s) per publisher")
        }
        if chosen.contains(where: { $0.scenario.videoCodec == "vp9" }) {
            let vp9 = try media.scalable(.vp9)
            print("   VP9 L2T3_KEY 640×360 + 320×180: \(vp9.bitrate / 1000) kbit/s (\(Int(vp9.packetRate)) pkt/s) per publisher")
        }
        print("   load: VP8 640×360 \(media.big.bitrate / 1000) kbit/s (\(Int(media.big.packetRate)) pkt/s), "
              + "Opus \(media.audio.bitrate / 1000) kbit/s (\(Int(media.audio.packetRate)) pkt/s) per publisher; subscribers decode nothing")
        var ours: [(label: String, server: (process: ServerProcess, port: UInt16, executable: String))] = []
        defer { for server in ours { server.server.process.stop() } }
        if Self.servers.contains("srtc") {
            for workers in Self.workerCounts { ours.append(("srtc×\(workers)", try await startOurServer(workers: workers))) }
        }
        let janus = Self.servers.contains("janus") ? try await JanusServer.start() : nil
        defer { janus?.stop() }
        for (label, server) in ours {
            print("   \(label): srtc-server (pid \(server.process.pid), \(server.executable), --media-workers \(label.dropFirst(5)), "
                  + "--media-thread-priority \(Self.mediaThreadPriority))")
        }
        if let janus { print("   janus 1.1 VideoRoom (pid \(janus.process.pid), event_loops = 2, ICE-lite)") }
        var rows: [Row] = []
        for (name, scenario, sendsMedia) in chosen {
            var targets: [(String, any LoadTarget, Int32, String?)] = []
            for (label, server) in ours {
                targets.append((label, SRTCLoadTarget(baseURL: "http://127.0.0.1:\(server.port)", appId: Self.appId, appKey: Self.appKey),
                                server.process.pid, "http://127.0.0.1:\(server.port)/metrics"))
            }
            if let janus, scenario.videoCodec == nil { targets.append(("janus", JanusLoadTarget(baseURL: janus.apiURL), janus.process.pid, nil)) }
            for (label, target, pid, metricsURL) in targets {
                var row = await measure(name, scenario, target: target, pid: pid, metricsURL: metricsURL, sendsMedia: sendsMedia)
                row.server = label
                print("   " + Self.progressLine(row))
                rows.append(row)
            }
        }
        if !rows.isEmpty { print(Self.table(rows)) }
        if only?.contains("capacity") == true {
            var configurations: [CapacityConfiguration] = []
            for (label, server) in ours {
                configurations.append((label, { SRTCLoadTarget(baseURL: "http://127.0.0.1:\(server.port)", appId: Self.appId, appKey: Self.appKey) },
                                       server.process.pid, "http://127.0.0.1:\(server.port)/metrics"))
            }
            if let janus {
                let url = janus.apiURL
                configurations.append(("janus", { JanusLoadTarget(baseURL: url) }, janus.process.pid, nil))
            }
            await runCapacitySearch(configurations)
        }
    }

    private func measure(_ name: String, _ scenario: LoadScenario, target: any LoadTarget, pid: Int32, metricsURL: String?,
                         sendsMedia: Bool) async -> Row {
        var row = Row(scenario: name, server: target.name, participants: scenario.rooms * scenario.participantsPerRoom, media: sendsMedia)
        let capacity = Self.capacityScenarios.contains { $0.name == name }
        row.decryptionInterval = capacity ? Self.capacityDecryptionInterval : 1
        row.sharedThreads = capacity ? Self.capacitySharedThreads : 0
        do {
            let run = try await LoadRun(scenario: scenario, target: target, sendMedia: sendsMedia, decryptionInterval: row.decryptionInterval,
                                        sharedReceiveThreads: row.sharedThreads)
            do {
                try await run.setUp()
            } catch {
                await run.tearDown()
                throw error
            }
            try? await Task.sleep(for: .seconds(warmUp))
            let report = await measureWindow(run, seconds: window, into: &row, pid: pid, metricsURL: metricsURL)
            if sendsMedia {
                run.stopSending()
                try? await Task.sleep(for: .milliseconds(300))
                let targets = run.lastWindowDestinations.filter { $0.packets > 0 }.map {
                    // The wire size: RTP plus the 16-byte SRTP tag (AES-GCM).
                    KernelFloor.Target(address: $0.address, packetsPerSecond: Double($0.packets) / report.seconds,
                                       size: $0.bytes / $0.packets + 16)
                }
                row.floor = KernelFloor.measure(targets, seconds: 3)
            }
            await run.tearDown()
        } catch {
            row.error = "\(error)"
        }
        return row
    }

    /// One window of a set-up run: the report, and into `row` the server's and the generator's
    /// CPU and the machine's figures read at the window's edges, and our server's forwarding p99
    /// and forwarded rate from its /metrics around it.
    func measureWindow(_ run: LoadRun, seconds: Double, into row: inout Row, pid: Int32, metricsURL: String?) async -> LoadReport {
        // The server publishes its media metrics every second: read a second after each edge.
        var latencyBefore: ForwardingLatencyProbe?
        if let metricsURL { latencyBefore = await ForwardingLatencyProbe.read(metricsURL) }
        // The clocks are read at the window's edges, as its packets are counted (`LoadRun.measure`).
        var before = 0.0, generatorBefore = 0.0, machineBefore = MachineLoad(), accountingBefore = CPUAccounting()
        var edges = row
        let report = await run.measure(seconds: seconds, atEdge: { end in
            if end {
                edges.cpu = (CPUTime.process(pid: pid) ?? 0) - before
                edges.generatorCPU = CPUTime.process() - generatorBefore
                let machine = MachineLoad.now()
                edges.machineBusyCores = machine.busyCores(since: machineBefore, cores: ProcessInfo.processInfo.activeProcessorCount)
                edges.receiveBufferDrops = machine.receiveBufferDrops - machineBefore.receiveBufferDrops
                edges.closedPortDrops = machine.closedPortDrops - machineBefore.closedPortDrops
                edges.accounting = CPUAccounting.now(server: pid).window(since: accountingBefore)
            } else {
                (before, generatorBefore, machineBefore) = (CPUTime.process(pid: pid) ?? 0, CPUTime.process(), MachineLoad.now())
                accountingBefore = CPUAccounting.now(server: pid)
            }
        })
        row = edges
        if let metricsURL, let latencyBefore {
            try? await Task.sleep(for: .milliseconds(1100))
            let after = await ForwardingLatencyProbe.read(metricsURL)
            row.forwardingP99 = after.quantile(0.99, since: latencyBefore)
            if let forwarded = after.forwarded, let earlier = latencyBefore.forwarded {
                row.forwardedRate = (forwarded - earlier) / report.seconds
            }
        }
        row.report = report
        return report
    }

    // MARK: - Our server

    private func startOurServer(workers: Int) async throws -> (process: ServerProcess, port: UInt16, executable: String) {
        let executable = Self.serverExecutable
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("srtc-server").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw LoadError.setup("no \(executable): build it first (make bench-sfu builds it)")
        }
        let directory = NSTemporaryDirectory() + "srtc-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try ServerProcess.freePort()
        let process = try ServerProcess(name: "srtc-server", executable: executable, arguments: [
            "--http-port", "\(port)", "--udp-port", "0", "--data-dir", directory, "--app-id", Self.appId, "--app-key", Self.appKey,
            "--max-users-per-channel", "1000", "--joins-per-second", "1000", "--log-level", "warn", "--web-dir", "",
            // Every participant's signaling comes from 127.0.0.1: the default 256 per address cut 1→300 at 255 viewers.
            "--max-connections-per-address", "0",
            // Its media thread no longer preempted by the load's 50–200 subscriber threads on the same cores (README).
            "--media-thread-priority", Self.mediaThreadPriority, "--media-workers", "\(workers)",
        ], logPath: "\(directory)/server.log")
        try await process.waitUntilReady(url: "http://127.0.0.1:\(port)/healthz")
        return (process, port, executable)
    }

    // MARK: - Output

    static func progressLine(_ row: Row) -> String {
        guard let report = row.report else { return "\(row.scenario) \(row.server): failed: \(row.error ?? "?")" }
        let failures = report.failures.isEmpty ? "" : "  (\(report.failures.count) failure(s): \(report.failures.first!))"
        return "\(row.scenario) \(row.server): set up in \(report.setupSeconds) s, \(Int(report.receiveRate)) pkt/s delivered, "
            + String(format: "server CPU %.1f%% of a core, load generator %.1f%% (%.2f µs/pkt", 100 * row.cpu / 1e6 / report.seconds,
                     100 * row.generatorCPU / 1e6 / report.seconds, row.generatorCPUPerPacket)
            + (row.decryptionInterval > 1 ? ", subscribers decrypt 1 packet in \(row.decryptionInterval)" : "")
            + (row.countingOnly ? ", counting-only subscribers" : "")
            + (row.sharedThreads > 0 ? ", transports on \(row.sharedThreads) shared I/O threads)" : ")")
            + String(format: ", machine %.2f cores busy", row.machineBusyCores) + failures
            + (overloadNote(row).map { "\n     " + $0 } ?? "")
    }

    /// Why a media row lost more than 0.5 % (or got nothing), from what the machine did over its
    /// window: the cores' use by the server, the generator and every other process, what the
    /// server forwarded against what the subscribers counted, and what the kernel dropped at
    /// full receive buffers. Nil for a clean row.
    static func overloadNote(_ row: Row) -> String? {
        guard row.media, let report = row.report, report.seconds > 0,
              report.packetsReceived == 0 || 1 - min(1, report.delivery) > 0.005 else { return nil }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let server = row.cpu / 1e6 / report.seconds, generator = row.generatorCPU / 1e6 / report.seconds
        var text = String(format: "lost %.1f%%: the machine's %d cores were %.0f%% busy (server %.2f cores, load generator %.2f, "
                          + "other processes %.2f)", 100 * (1 - min(1, report.delivery)), cores, 100 * row.machineBusyCores / Double(cores),
                          server, generator, max(0, row.machineBusyCores - server - generator))
        let offered = Double(report.packetsExpected) / report.seconds
        if let forwarded = row.forwardedRate {
            text += String(format: "; the server forwarded %.0f pkt/s of %.0f offered, the subscribers counted %.0f", forwarded, offered,
                           report.receiveRate)
        }
        text += "; the kernel dropped \(row.receiveBufferDrops) datagrams at full UDP receive buffers and \(row.closedPortDrops) sent to closed ports"
        if let failure = report.failures.last(where: { $0.contains("not connected as the window ended") }) {
            text += ": " + failure
        } else if let forwarded = row.forwardedRate, forwarded >= 0.9 * offered, row.receiveBufferDrops > 0 {
            text += ": the server forwarded the load, the generator's sockets overflowed (its threads did not get the CPU)"
        } else if row.machineBusyCores >= 0.95 * Double(cores) {
            text += ": the cores were full"
        }
        return text
    }

    static func table(_ rows: [Row]) -> String {
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
        }
        func left(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        var lines = ["", "SFU under the same load: srtc-server (release; srtc×N: --media-workers N) vs Janus 1.1.2 VideoRoom (event_loops = 2)",
                     left("scenario", 14) + left("server", 7) + pad("fwd pkt/s", 10) + pad("CPU µs/pkt", 11) + pad("floor", 7)
                        + pad("×floor", 7) + pad("pkt/CPU-s", 11) + pad("e2e p50 ms", 11) + pad("p99 ms", 8) + pad("fwd p99", 8) + pad("loss", 8)
                        + pad("gen µs/pkt", 11) + pad("ours/Janus", 11)]
        for (index, row) in rows.enumerated() {
            guard let report = row.report else {
                lines.append(left(row.scenario, 14) + left(row.server, 7) + "  failed: \(row.error ?? "?")")
                continue
            }
            if !report.scenario.audio && !report.scenario.video { continue }
            if row.media && report.packetsReceived == 0 {
                // Not an idle run: media was sent and none counted in the window.
                lines.append(left(row.scenario, 14) + left(row.server, 7) + "  nothing delivered in the window"
                             + (report.failures.isEmpty ? "" : " (\(report.failures.count) failure(s): \(report.failures.last!))"))
                if let note = overloadNote(row) { lines.append("    " + note) }
                continue
            }
            // Each of our rows against Janus's row of the same scenario.
            let janus = row.server.hasPrefix("srtc") ? rows[index...].first { $0.server == "janus" && $0.scenario == row.scenario } : nil
            let ratio = janus.flatMap { $0.report == nil ? nil : row.packetsPerCPUSecond / max(1e-9, $0.packetsPerCPUSecond) }
            if report.packetsReceived == 0 {
                // An idle run: the cost of a joined participant, as a share of one core.
                lines.append(left(row.scenario, 14) + left(row.server, 7)
                             + String(format: "  idle: %.3f%% of a core per joined participant (%d participants, %.1f%% in all)",
                                      row.idleShare, row.participants, 100 * row.cpu / 1e6 / report.seconds)
                             + (janus.map { String(format: "; Janus %.3f%%", $0.idleShare) } ?? ""))
                continue
            }
            lines.append(left(row.scenario, 14) + left(row.server, 7) + pad(String(format: "%.0f", report.receiveRate), 10)
                         + pad(String(format: "%.2f", row.cpuPerPacket), 11) + pad(String(format: "%.2f", row.floor), 7)
                         + pad(String(format: "%.2f", row.cpuPerPacket / max(1e-9, row.floor)), 7)
                         + pad(String(format: "%.0f", row.packetsPerCPUSecond), 11)
                         + pad(String(format: "%.2f", report.latency.p50), 11) + pad(String(format: "%.2f", report.latency.p99), 8)
                         + pad(row.forwardingP99.map { $0.isFinite ? "≤" + String(format: "%g", $0) : ">10" } ?? "–", 8)
                         + pad(String(format: "%.2f%%", 100 * (1 - min(1, report.delivery))), 8)
                         + pad(String(format: "%.2f", row.generatorCPUPerPacket) + (row.decryptionInterval > 1 ? "c" : ""), 11)
                         + pad(ratio.map { String(format: "%.2f×", $0) } ?? "", 11)
                         + (report.failures.isEmpty ? "" : "  (\(report.failures.count) failure(s))"))
            if let note = overloadNote(row) { lines.append("    " + note) }
        }
        lines.append("fwd pkt/s: packets subscribers received per second; CPU µs/pkt: the server's whole-process CPU (/proc) over the")
        lines.append("window per delivered packet; floor: a bare sendmmsg loop sending the same datagrams to the same sockets; e2e:")
        lines.append("publisher send to subscriber arrival; fwd p99: our server's p99 from a packet's arrival in the SFU (decrypted)")
        lines.append("to the kernel taking each copy (the return of its sendmmsg), ms, as the /metrics histogram bound it falls")
        lines.append("under; gen µs/pkt: the load generator's own CPU (this process) per delivered packet, \"c\" where its subscribers")
        lines.append("count datagrams from the clear RTP header and decrypt one in \(capacityDecryptionInterval)"
                     + (capacitySharedThreads > 0 ? " and every transport is served by \(capacitySharedThreads) shared I/O threads" : "")
                     + "; ours/Janus: delivered")
        lines.append("packets per server CPU-second, ours over Janus's.")
        lines += capacityLines(rows)
        return lines.joined(separator: "\n")
    }

    /// The capacity row: per server, the most packets per second delivered in a capacity scenario
    /// with ≤ 0.5 % loss, e2e p99 < 50 ms and every participant set up (docs/benchmarks.md).
    static func capacityLines(_ rows: [Row]) -> [String] {
        let measured = rows.filter { row in capacityScenarios.contains { $0.name == row.scenario } && row.report != nil }
        guard !measured.isEmpty else { return [] }
        var lines = ["", "capacity (most pkt/s delivered with ≤ 0.5 % loss, e2e p99 < 50 ms, no setup failure; scenarios run: "
                     + Array(Set(measured.map(\.scenario))).sorted().joined(separator: ", ") + ")"]
        var servers: [String] = []
        for row in measured where !servers.contains(row.server) { servers.append(row.server) }
        for server in servers {
            let passing = measured.filter { row in
                guard row.server == server, let report = row.report else { return false }
                return report.failures.isEmpty && 1 - min(1, report.delivery) <= 0.005 && report.latency.p99 < 50
            }
            if let best = passing.max(by: { $0.report!.receiveRate < $1.report!.receiveRate }) {
                lines.append("  \(server): \(Int(best.report!.receiveRate)) pkt/s (\(best.scenario))"
                             + (passing.count < measured.filter { $0.server == server }.count ? "; the others failed the limits" : ""))
            } else {
                lines.append("  \(server): no scenario within the limits")
            }
        }
        return lines
    }
}
