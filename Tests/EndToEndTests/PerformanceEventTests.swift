import Foundation
import RTCMedia
import SRTC
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// Records the engine's performance events.
final class PerformanceRecorder: SRTCEngineDelegate, @unchecked Sendable {
    private let store = Mutex<(stats: [PerformanceStats], warnings: [PerformanceWarning])>(([], []))
    var stats: [PerformanceStats] { store.withLock { $0.stats } }
    var warnings: [PerformanceWarning] { store.withLock { $0.warnings } }

    func engine(_ engine: SRTCEngine, performanceDidUpdate stats: PerformanceStats) { store.withLock { $0.stats.append(stats) } }
    func engine(_ engine: SRTCEngine, performanceWarning warning: PerformanceWarning) { store.withLock { $0.warnings.append(warning) } }
}

/// The engine delegate's performance events from a real engine in a real channel.
@Suite struct PerformanceEventTests {
    @Test func aTrackPushedBelowHalfItsFrameRateRaisesADropAndStatsArrive() async throws {
        let server = try SDKTestServer()
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "performance"), logLevel: .off,
                                                     mediaBindAddress: "127.0.0.1", performanceInterval: 0.4))
        let recorder = PerformanceRecorder()
        engine.delegates.add(delegate: recorder)
        let channel = try engine.createChannel()
        try await channel.join(url: server.url, token: server.token(uid: "a", channel: "performance"))
        let video = engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 160, height: 96, frameRate: 30, maxBitrate: 200_000))
        try await channel.publishLocalTrack(video)
        let trackId = try #require(video.trackId)

        // 5 frames a second into a 30 fps track, from a thread of its own.
        let running = Atomic<Bool>(true)
        let pattern = try TestPatternGenerator(width: 160, height: 96, frameRate: 5)
        Thread {
            var n = 0
            let start = DispatchTime.now().uptimeNanoseconds
            while running.load(ordering: .relaxed) {
                _ = video.pushFrame(pattern.videoFrame(number: n))
                n += 1
                let due = start + UInt64(n) * 200_000_000, now = DispatchTime.now().uptimeNanoseconds
                if due > now { usleep(UInt32((due - now) / 1_000)) }
            }
        }.start()
        defer { running.store(false, ordering: .relaxed) }

        try await eventually(timeout: 10, "a frame-rate drop for the track") {
            recorder.warnings.contains { if case .frameRateDrop(trackId, "canvas", 30, _) = $0 { true } else { false } }
        }
        let drop = recorder.warnings.compactMap { w -> Double? in if case .frameRateDrop(trackId, _, _, let actual) = w { actual } else { nil } }
        #expect(drop.count == 1 && drop[0] < 15, "drops \(drop)")   // once per episode
        let sample = try #require(recorder.stats.last { $0.sentFrameRates[trackId] != nil })
        #expect(sample.sentFrameRates[trackId]! < 15 && sample.cpuCores == ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
        // CPU and memory from /proc: a share of the machine, and about this process's resident set.
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        let resident = Double(Int64(statm[1])! * Int64(sysconf(Int32(_SC_PAGESIZE))))
        let memory = Double(try #require(sample.memoryBytes))
        #expect(memory > resident / 2 && memory < resident * 2, "memory \(memory) vs resident \(resident)")
        #expect(sample.appCpuUsage.map { (0...1).contains($0) } == true && sample.systemCpuUsage.map { (0...1).contains($0) } == true)
        #endif

        await engine.destroy()
        let count = recorder.stats.count
        try await Task.sleep(for: .seconds(1))   // not a wait for a condition: nothing may come after destroy
        #expect(recorder.stats.count <= count + 1)
        await server.stop()
    }
}
