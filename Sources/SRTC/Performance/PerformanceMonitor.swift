import Dispatch
import Foundation
import Synchronization

/// Samples the app's performance every `interval` seconds while the engine has delegates:
/// process and system CPU and memory from /proc (Linux), and the frame rate each published local
/// video track sends. Each sample becomes `performanceDidUpdate`; lasting high CPU and frame-rate
/// drops become `performanceWarning`s, once per episode. Reading three small /proc files every
/// few seconds costs microseconds; nothing runs on the media paths.
// @unchecked Sendable: `state` is a Mutex; `timer`, a DispatchSource (thread-safe, not marked Sendable), is a `let` set up in init.
final class PerformanceMonitor: @unchecked Sendable {
    /// The fraction of all cores above which the CPU counts as high.
    static let highCpuUsage = 0.85
    /// Intervals in a row above `highCpuUsage` before the warning.
    static let highCpuIntervals = 3

    /// What one sample is compared with.
    struct State {
        var last: ProcStatReader.Snapshot?
        var lastTime: UInt64 = 0
        var framesEncoded: [ObjectIdentifier: Int] = [:]
        var highCpuRun = 0
        var droppingTracks: Set<ObjectIdentifier> = []
    }

    private let state = Mutex(State())
    private let timer: DispatchSourceTimer

    /// Starts sampling; `sample` gets each interval's tracks (weakly: it returns nil once the
    /// engine is gone, which stops the timer).
    init(interval: Double, sample: @escaping @Sendable () -> (tracks: [LocalVideoTrack], notify: (PerformanceStats, [PerformanceWarning]) -> Void)?) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "srtc.performance", qos: .utility))
        let nanoseconds = Int(max(0.1, interval) * 1e9)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(50))
        timer.setEventHandler { [weak self, timer = self.timer] in
            guard let self, let sampled = sample() else { return timer.cancel() }
            let (stats, warnings) = self.measure(tracks: sampled.tracks, snapshot: ProcStatReader.snapshot(), now: DispatchTime.now().uptimeNanoseconds)
            if let stats { sampled.notify(stats, warnings) }
        }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    func stop() {
        timer.cancel()
    }

    /// One sample: the stats since the previous one (nil the first time), and the warnings it raises.
    func measure(tracks: [LocalVideoTrack], snapshot: ProcStatReader.Snapshot?, now: UInt64) -> (PerformanceStats?, [PerformanceWarning]) {
        state.withLock { s in
            defer {
                s.last = snapshot
                s.lastTime = now
                s.framesEncoded = Dictionary(tracks.map { (ObjectIdentifier($0), $0.sendPipeline.stats.framesEncoded[0]) }, uniquingKeysWith: { a, _ in a })
            }
            guard s.lastTime > 0, now > s.lastTime else { return (nil, []) }
            let seconds = Double(now - s.lastTime) / 1e9
            let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
            var stats = PerformanceStats(appCpuUsage: nil, systemCpuUsage: nil, memoryBytes: nil, cpuCores: cores, sentFrameRates: [:])
            if let snapshot, let last = s.last {
                let ticksPerSecond = Double(Self.clockTicksPerSecond)
                let process = Double(max(0, snapshot.processTicks - last.processTicks)) / ticksPerSecond
                stats.appCpuUsage = min(1, process / (seconds * Double(cores)))
                let total = snapshot.systemTotalTicks - last.systemTotalTicks
                if total > 0 { stats.systemCpuUsage = min(1, Double(max(0, snapshot.systemBusyTicks - last.systemBusyTicks)) / Double(total)) }
            }
            if let snapshot { stats.memoryBytes = snapshot.residentPages.multipliedReportingOverflow(by: Int64(Self.pageSize)).partialValue }

            var warnings: [PerformanceWarning] = []
            if let usage = stats.appCpuUsage {
                s.highCpuRun = usage >= Self.highCpuUsage ? s.highCpuRun + 1 : 0
                if s.highCpuRun == Self.highCpuIntervals { warnings.append(.highCpuUsage(appCpuUsage: usage)) }
            }
            for track in tracks {
                // Only tracks that were already published at the previous sample: a full interval.
                let key = ObjectIdentifier(track)
                guard let before = s.framesEncoded[key], let trackId = track.trackId else { continue }
                let rate = Double(max(0, track.sendPipeline.stats.framesEncoded[0] - before)) / seconds
                stats.sentFrameRates[trackId] = rate
                if rate < Double(track.preset.frameRate) / 2 {
                    if s.droppingTracks.insert(key).inserted {
                        warnings.append(.frameRateDrop(trackId: trackId, desc: track.desc, expected: track.preset.frameRate, actual: rate))
                    }
                } else {
                    s.droppingTracks.remove(key)
                }
            }
            s.droppingTracks.formIntersection(tracks.map { ObjectIdentifier($0) })
            return (stats, warnings)
        }
    }

    #if os(Linux)
    static let clockTicksPerSecond = max(1, sysconf(Int32(_SC_CLK_TCK)))
    static let pageSize = max(1, sysconf(Int32(_SC_PAGESIZE)))
    #else
    static let clockTicksPerSecond = 100
    static let pageSize = 4_096
    #endif
}
