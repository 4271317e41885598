/// The app's performance over one interval (`SRTCEngineDelegate.engine(_:performanceDidUpdate:)`,
/// every `Configuration.performanceInterval` seconds).
public struct PerformanceStats: Sendable, Equatable {
    /// CPU time this process used over the interval, as a fraction of all cores (0…1; 0.5 on a
    /// 4-core machine is two cores busy). Linux: from `/proc/self/stat`; nil where unavailable.
    public var appCpuUsage: Double?
    /// CPU time the whole system was busy over the interval, fraction of all cores (0…1). Linux:
    /// from `/proc/stat`; nil where unavailable.
    public var systemCpuUsage: Double?
    /// Resident memory of the process in bytes (Linux: `/proc/self/statm`); nil where unavailable.
    public var memoryBytes: Int64?
    /// Online CPU cores.
    public var cpuCores: Int
    /// The frames per second each published local video track sent over the interval (its big
    /// layer), by track id.
    public var sentFrameRates: [String: Double]

    public init(appCpuUsage: Double?, systemCpuUsage: Double?, memoryBytes: Int64?, cpuCores: Int, sentFrameRates: [String: Double]) {
        self.appCpuUsage = appCpuUsage
        self.systemCpuUsage = systemCpuUsage
        self.memoryBytes = memoryBytes
        self.cpuCores = cpuCores
        self.sentFrameRates = sentFrameRates
    }
}

/// A performance problem (`SRTCEngineDelegate.engine(_:performanceWarning:)`).
public enum PerformanceWarning: Sendable, Equatable {
    /// The process used at least `PerformanceMonitor.highCpuUsage` (85 %) of all cores for three
    /// intervals in a row; reported once until it drops below again.
    case highCpuUsage(appCpuUsage: Double)
    /// A published local video track sent less than half its preset's frame rate over an interval
    /// (capture, processors or the encoder cannot keep up, or the app pushes too few frames);
    /// reported once until it recovers.
    case frameRateDrop(trackId: String, desc: String, expected: Int, actual: Double)
}
