import Foundation
@testable import SRTCCore
import TestRandom
import Testing

/// The performance events' arithmetic on /proc text in the kernel's formats (proc(5)), and
/// seeded random text for the parsers.
struct PerformanceMonitorTests {
    // A command name with spaces and parentheses: fields are counted after the last ')'.
    static let stat = "4242 (my (odd) app) S 1 4242 4242 0 -1 4194560 1630 0 0 0 1234 567 0 0 20 0 9 0 81234 1503232000 5120 "
        + "18446744073709551615 1 1 0 0 0 0 0 4096 1260 0 0 0 17 1 0 0 0 0 0\n"
    static let systemStat = "cpu  1000 20 300 5000 100 7 8 9 0 0\ncpu0 500 10 150 2500 50 3 4 4 0 0\nintr 123 0\n"
    static let statm = "366502 5120 2781 1 0 12029 0\n"

    @Test func procTextIsParsed() {
        // The expected values are typed: an untyped sum in `#expect` is compared as a different
        // integer type, and an `Int64?` never equals an `Int` there, whatever the numbers.
        let processTicks: Int64 = 1234 + 567   // utime + stime
        let total: Int64 = 1000 + 20 + 300 + 5000 + 100 + 7 + 8 + 9, busy: Int64 = total - 5000 - 100   // less idle and iowait
        #expect(ProcStatReader.processTicks(stat: Self.stat) == processTicks)
        let system = ProcStatReader.systemTicks(stat: Self.systemStat)
        #expect(system?.total == total)
        #expect(system?.busy == busy)
        #expect(ProcStatReader.residentPages(statm: Self.statm) == 5120)
        for bad in ["", "4242 (app", "4242 (app) S 1 2", ")", "cpu0 1 2 3 4", "cpu  -1 2 3 4", "x"] {
            #expect(ProcStatReader.processTicks(stat: bad) == nil && ProcStatReader.systemTicks(stat: bad) == nil)
        }
        #expect(ProcStatReader.residentPages(statm: "12") == nil && ProcStatReader.residentPages(statm: "1 -5") == nil)
    }

    @Test func randomTextNeverCrashesTheParsers() {
        var random = SeededRandom(seed: 0x9E7F)
        let alphabet = Array("0123456789 ()-\ncpu".utf8)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let ticks = ProcStatReader.processTicks(stat: text) { #expect(ticks >= 0) }
            if let system = ProcStatReader.systemTicks(stat: text) { #expect(system.busy >= 0 && system.busy <= system.total) }
            if let pages = ProcStatReader.residentPages(statm: text) { #expect(pages >= 0) }
        }
    }

    @Test func cpuShareAndHighCpuWarningsFollowTheCounters() throws {
        let monitor = PerformanceMonitor(interval: 3_600) { nil }
        defer { monitor.stop() }
        let ticks = Int64(PerformanceMonitor.clockTicksPerSecond)
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        var snapshot = ProcStatReader.Snapshot(processTicks: 1_000, systemBusyTicks: 10_000, systemTotalTicks: 40_000, residentPages: 100)
        var now: UInt64 = 1_000_000_000
        #expect(monitor.measure(tracks: [], snapshot: snapshot, now: now).0 == nil)   // nothing to compare with yet

        // One second later: the process used half a core-second; the system 30 of 100 ticks.
        snapshot.processTicks += ticks / 2
        snapshot.systemBusyTicks += 30
        snapshot.systemTotalTicks += 100
        snapshot.residentPages = 256
        now += 1_000_000_000
        let (stats, warnings) = monitor.measure(tracks: [], snapshot: snapshot, now: now)
        let sample = try #require(stats)
        let app = try #require(sample.appCpuUsage)
        #expect(abs(app - min(1, 0.5 / cores)) < 1e-9)
        #expect(sample.systemCpuUsage == 0.3)
        #expect(sample.memoryBytes == 256 * Int64(PerformanceMonitor.pageSize))
        #expect(warnings.isEmpty)

        // Every core busy: the warning comes at the third interval in a row, once per episode.
        func busySecond() -> [PerformanceWarning] {
            snapshot.processTicks += ticks * Int64(cores)
            now += 1_000_000_000
            return monitor.measure(tracks: [], snapshot: snapshot, now: now).1
        }
        #expect(busySecond().isEmpty && busySecond().isEmpty)
        #expect(busySecond() == [.highCpuUsage(appCpuUsage: 1)])
        #expect(busySecond().isEmpty)
        now += 1_000_000_000   // an idle second ends the episode
        _ = monitor.measure(tracks: [], snapshot: snapshot, now: now)
        #expect(busySecond().isEmpty && busySecond().isEmpty && busySecond() == [.highCpuUsage(appCpuUsage: 1)])
    }

    #if os(Linux)
    @Test func thisProcessIsMeasured() throws {
        let snapshot = try #require(ProcStatReader.snapshot())
        #expect(snapshot.processTicks >= 0 && snapshot.residentPages > 0 && snapshot.systemBusyTicks <= snapshot.systemTotalTicks)
    }
    #endif
}
