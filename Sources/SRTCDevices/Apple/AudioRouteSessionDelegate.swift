#if canImport(AVFAudio) && os(iOS)
import SRTCCore
import AVFAudio

/// The audio session's events (seed 002, iOS only), on the main queue; every method has an empty
/// default. Register with `AudioRouteSession.shared.delegates.add(delegate: self)`.
public protocol AudioRouteSessionDelegate: AnyObject {
    /// The output route changed; `reason` says why (unplugged, plugged in, the app's override).
    func audioRouteSession(_ session: AudioRouteSession, didChangeRoute route: AudioRoute, from previous: AudioRoute,
                           reason: AVAudioSession.RouteChangeReason)
    /// An incoming call, Siri or another app took the audio session.
    func audioRouteSessionWasInterrupted(_ session: AudioRouteSession)
    /// The session was rebuilt after an interruption, and it worked (`AudioInterruptionRecovery`).
    func audioRouteSessionDidRecoverFromInterruption(_ session: AudioRouteSession)
    /// The system's call state changed (CallKit).
    func audioRouteSession(_ session: AudioRouteSession, didChangeCallState state: AudioCallState)
}

extension AudioRouteSessionDelegate {
    public func audioRouteSession(_ session: AudioRouteSession, didChangeRoute route: AudioRoute, from previous: AudioRoute,
                                  reason: AVAudioSession.RouteChangeReason) {}
    public func audioRouteSessionWasInterrupted(_ session: AudioRouteSession) {}
    public func audioRouteSessionDidRecoverFromInterruption(_ session: AudioRouteSession) {}
    public func audioRouteSession(_ session: AudioRouteSession, didChangeCallState state: AudioCallState) {}
}
#endif
