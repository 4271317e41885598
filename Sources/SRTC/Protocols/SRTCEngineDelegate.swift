/// Process-level events of the engine (the documentation's `RTCEngineDelegate`): the network
/// speed test and app performance. Register with `srtc.delegates.add(delegate: self)`.
///
/// Every method has a default empty implementation. Events arrive on the engine's delegate
/// queue. Audio-route events come from an `AudioRouteSession` (iOS only: never on Linux);
/// in-channel events from `ChannelDelegate`.
public protocol SRTCEngineDelegate: AnyObject {
    /// A running speed test moved on (about every 0.5 s and at each phase change).
    func engine(_ engine: SRTCEngine, speedTestDidProgress progress: SpeedTestProgress)
    /// A speed test completed with its measurements.
    func engine(_ engine: SRTCEngine, speedTestDidFinish result: SpeedTestResult)
    /// A speed test could not run: the server did not answer (`.timeout`), refused the token
    /// (`.server`: 40107 expired, 40301 not a speed-test or channel token, 42901 too many tests),
    /// or the address could not be used (`.invalidURL`, `.connectionFailed`). `stopSpeedTest()`
    /// reports nothing.
    func engine(_ engine: SRTCEngine, speedTestDidFail error: SRTCError, linkId: String)
    /// The app's performance over the last `Configuration.performanceInterval` seconds (CPU and
    /// memory from /proc on Linux, each published video track's sent frame rate).
    func engine(_ engine: SRTCEngine, performanceDidUpdate stats: PerformanceStats)
    /// A lasting performance problem: high CPU, or a video track sending under half its frame rate.
    func engine(_ engine: SRTCEngine, performanceWarning warning: PerformanceWarning)
    /// iOS: the call moved from `previousRoute` to `route` (the documentation's
    /// `onAudioRouteChange:previousRoute:`), reported by the app's `AudioRouteSession`.
    func engine(_ engine: SRTCEngine, audioRouteDidChange route: AudioRoute, previousRoute: AudioRoute)
    /// A broadcast extension started (`true`) or ended (`false`) a screen broadcast to this app
    /// (`startScreenRecordListening`): the moment to publish `screenRecordTrack`, or to stop.
    func engine(_ engine: SRTCEngine, screenRecordDidChange broadcasting: Bool)
}

extension SRTCEngineDelegate {
    public func engine(_ engine: SRTCEngine, speedTestDidProgress progress: SpeedTestProgress) {}
    public func engine(_ engine: SRTCEngine, speedTestDidFinish result: SpeedTestResult) {}
    public func engine(_ engine: SRTCEngine, speedTestDidFail error: SRTCError, linkId: String) {}
    public func engine(_ engine: SRTCEngine, performanceDidUpdate stats: PerformanceStats) {}
    public func engine(_ engine: SRTCEngine, performanceWarning warning: PerformanceWarning) {}
    public func engine(_ engine: SRTCEngine, audioRouteDidChange route: AudioRoute, previousRoute: AudioRoute) {}
    public func engine(_ engine: SRTCEngine, screenRecordDidChange broadcasting: Bool) {}
}
