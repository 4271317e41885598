import SRTC
import TestWait
import Synchronization

/// An `SRTCEngineDelegate` that keeps the speed-test events.
final class SpeedTestRecorder: SRTCEngineDelegate, @unchecked Sendable {
    private let state = Mutex<(progress: [SpeedTestProgress], result: SpeedTestResult?, error: SRTCError?)>(([], nil, nil))

    var progress: [SpeedTestProgress] { state.withLock { $0.progress } }
    var result: SpeedTestResult? { state.withLock { $0.result } }
    var error: SRTCError? { state.withLock { $0.error } }

    func engine(_ engine: SRTCEngine, speedTestDidProgress progress: SpeedTestProgress) { state.withLock { $0.progress.append(progress) } }
    func engine(_ engine: SRTCEngine, speedTestDidFinish result: SpeedTestResult) { state.withLock { $0.result = result } }
    func engine(_ engine: SRTCEngine, speedTestDidFail error: SRTCError, linkId: String) { state.withLock { $0.error = error } }

    /// Waits for the result or the failure.
    func finished(timeout: Double = 60) async throws {
        try await eventually(timeout: timeout, "the speed test's end") { result != nil || error != nil }
    }
}
