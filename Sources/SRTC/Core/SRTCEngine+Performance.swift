import Foundation

/// App-performance events (the documentation's `RTCEngineDelegate` performance callbacks): every
/// `Configuration.performanceInterval` seconds `engine(_:performanceDidUpdate:)` with process and
/// system CPU, memory and each published video track's sent frame rate; `engine(_:performanceWarning:)`
/// when the CPU stays high or a track's frame rate drops below half its preset. CPU and memory
/// come from /proc on Linux (nil elsewhere for now); frame rates on every platform.
extension SRTCEngine {
    func startPerformanceMonitor() {
        let interval = context.configuration.performanceInterval
        guard interval > 0 else { return }
        let monitor = PerformanceMonitor(interval: interval) { [weak self] in
            guard let self, !self.context.isDestroyed else { return nil }
            return (self.publishedVideoTracks, { [weak self] stats, warnings in
                guard let self else { return }
                self.delegates.notify { $0.engine(self, performanceDidUpdate: stats) }
                for warning in warnings { self.delegates.notify { $0.engine(self, performanceWarning: warning) } }
            })
        }
        performanceMonitor.withLock { $0 = monitor }
    }

    /// The local video tracks published in joined channels, each once.
    private var publishedVideoTracks: [LocalVideoTrack] {
        var seen = Set<ObjectIdentifier>()
        return getChannels().flatMap(\.localTracks).compactMap { $0 as? LocalVideoTrack }.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
