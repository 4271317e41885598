#if canImport(AVFAudio) && os(iOS)
import SRTCCore
import AVFAudio
import CallKit
import Foundation
import Synchronization

/// Interruptions (seed 002): the audio session's, CallKit's and the application's notifications
/// feed `AudioInterruptionRecovery` (tested on Linux); this file only carries its actions out.
extension AudioRouteSession {
    /// Watches interruptions, calls and the app's foreground state. Called once, from `init`.
    func startWatchingInterruptions() -> [NSObjectProtocol] {
        let center = NotificationCenter.default
        callWatcher.onChange = { [weak self] state in self?.feed(.callStateChanged(state)) }
        callObserver.setDelegate(callWatcher, queue: .main)
        // The application's notifications by name: no UIKit (and no main actor) needed here.
        let foreground = Notification.Name("UIApplicationDidBecomeActiveNotification")
        let background = Notification.Name("UIApplicationDidEnterBackgroundNotification")
        return [
            center.addObserver(forName: AVAudioSession.interruptionNotification, object: nil, queue: .main) { [weak self] note in
                let raw = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt
                switch raw.flatMap(AVAudioSession.InterruptionType.init(rawValue:)) {
                case .some(.began): self?.feed(.interruptionBegan)
                case .some(.ended): self?.feed(.interruptionEnded)
                default: break
                }
            },
            center.addObserver(forName: foreground, object: nil, queue: .main) { [weak self] _ in self?.feed(.foregroundChanged(true)) },
            center.addObserver(forName: background, object: nil, queue: .main) { [weak self] _ in self?.feed(.foregroundChanged(false)) },
        ]
    }

    /// Runs one event through the rule and carries out what it says.
    func feed(_ event: AudioInterruptionRecovery.Event) {
        let actions = recovery.withLock { $0.handle(event) }
        for action in actions {
            switch action {
            case .reportInterrupted:
                delegates.notify { [self] in $0.audioRouteSessionWasInterrupted(self) }
            case .reportCallState(let state):
                delegates.notify { [self] in $0.audioRouteSession(self, didChangeCallState: state) }
            case .reportRecovered:
                delegates.notify { [self] in $0.audioRouteSessionDidRecoverFromInterruption(self) }
            case .retry(let seconds):
                DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { [weak self] in self?.feed(.retryDue) }
            case .rebuildSession:
                let succeeded = rebuildSession()
                DispatchQueue.main.async { [weak self] in self?.feed(.rebuildFinished(succeeded: succeeded)) }
            }
        }
    }

    /// Reactivates the audio session and restarts the speaker if it played.
    private func rebuildSession() -> Bool {
        do {
            try AVAudioSession.sharedInstance().setActive(true)
        } catch {
            return false
        }
        guard let engine, engine.isAudioPlaybackRunning else { return true }
        engine.stopAudioPlayback()
        return (try? engine.startAudioPlayback(deviceId: nil)) != nil
    }
}

/// CallKit's call changes as `AudioCallState`.
// @unchecked Sendable: `onChange` is set once, before the watcher becomes the call observer's delegate; callbacks then come on the main queue.
final class CallStateWatcher: NSObject, CXCallObserverDelegate, @unchecked Sendable {
    var onChange: ((AudioCallState) -> Void)?

    func callObserver(_ callObserver: CXCallObserver, callChanged call: CXCall) {
        let calls = callObserver.calls.filter { !$0.hasEnded }
        onChange?(Self.state(of: calls))
    }

    /// The state of the calls on: the first not ended decides.
    static func state(of calls: [CXCall]) -> AudioCallState {
        guard let call = calls.first else { return .idle }
        if call.isOnHold { return .onHold }
        if call.hasConnected { return .connected }
        return call.isOutgoing ? .outgoing : .incoming
    }
}
#endif
