#if canImport(AVFAudio) && os(iOS)
import SRTCCore
import AVFAudio
import CallKit
import Foundation
import Synchronization

/// Audio routing of the documentation's engine page (`switchAudioRoute:`, `currentAudioRoute`,
/// `headphoneDeviceAvailable`, `bluetoothDeviceAvailable`, `onAudioRouteChange:previousRoute:`)
/// on the process's `AVAudioSession`: a thin layer that reads the session's routes and applies
/// `AudioRoutePolicy` (tested on Linux). One per process (`shared`); route changes go to the
/// engine's delegates as `engine(_:audioRouteDidChange:previousRoute:)` and to `delegates`
/// (`AudioRouteSessionDelegate`, seed 002) with interruptions, their recovery
/// (`AudioInterruptionRecovery`, tested on Linux) and call states. iOS only: not compiled here.
// @unchecked Sendable: `engine` and `observers` are set in init and never reassigned (observers are only removed in deinit); the rest is Mutexes or `let`s.
public final class AudioRouteSession: @unchecked Sendable {
    /// The process's session, on the process's engine (`SRTCEngine.sharedEngine()`).
    public static let shared = AudioRouteSession(engine: SRTCEngine.sharedEngine())

    /// `AudioRouteSessionDelegate`s, held weakly, called on the main queue.
    public let delegates = MulticastDelegate<AudioRouteSessionDelegate>(queue: .main)
    weak var engine: SRTCEngine?
    private let policy = Mutex(AudioRoutePolicy())
    private let last = Mutex<AudioRoute?>(nil)
    let recovery = Mutex(AudioInterruptionRecovery())
    let callObserver = CXCallObserver()
    let callWatcher = CallStateWatcher()
    private var observers: [NSObjectProtocol] = []

    public init(engine: SRTCEngine) {
        self.engine = engine
        last.withLock { $0 = currentAudioRoute }
        observers = [NotificationCenter.default.addObserver(forName: AVAudioSession.routeChangeNotification, object: nil,
                                                            queue: nil) { [weak self] note in
            let raw = note.userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt
            self?.routeChanged(reason: raw.flatMap(AVAudioSession.RouteChangeReason.init(rawValue:)) ?? .unknown)
        }] + startWatchingInterruptions()
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    /// Asks the session for `route`; the actual route comes with `currentAudioRoute` and the
    /// delegate event. - Throws: `.notFound` when the route is not present, `.systemError` when
    /// the session refuses.
    public func switchAudioRoute(_ route: AudioRoute) throws(SRTCError) {
        let available = availableRoutes
        let target = try policy.withLock { (state: inout AudioRoutePolicy) throws(SRTCError) -> AudioRoute in
            try state.choose(route, available: available)
        }
        try apply(target)
    }

    /// The route the system plays on now.
    public var currentAudioRoute: AudioRoute {
        let session = AVAudioSession.sharedInstance()
        return session.currentRoute.outputs.lazy.compactMap { Self.route(of: $0.portType) }.first ?? .speaker
    }

    /// Whether a wired headset is connected.
    public var headphoneDeviceAvailable: Bool { availableRoutes.contains(.wiredHeadset) }

    /// Whether a Bluetooth headset is connected.
    public var bluetoothDeviceAvailable: Bool { availableRoutes.contains(.bluetooth) }

    // MARK: - Internals

    private var availableRoutes: Set<AudioRoute> {
        let session = AVAudioSession.sharedInstance()
        var routes: Set<AudioRoute> = [.speaker]
        if DeviceHasEarpiece.value { routes.insert(.earpiece) }
        for port in (session.availableInputs ?? []).map(\.portType) + session.currentRoute.outputs.map(\.portType) {
            if let route = Self.route(of: port), route != .speaker, route != .earpiece { routes.insert(route) }
        }
        return routes
    }

    private static func route(of port: AVAudioSession.Port) -> AudioRoute? {
        switch port {
        case .builtInSpeaker: .speaker
        case .builtInReceiver: .earpiece
        case .headphones, .headsetMic: .wiredHeadset
        case .bluetoothHFP, .bluetoothA2DP, .bluetoothLE: .bluetooth
        default: nil
        }
    }

    private func apply(_ route: AudioRoute) throws(SRTCError) {
        let session = AVAudioSession.sharedInstance()
        do {
            switch route {
            case .speaker:
                try session.overrideOutputAudioPort(.speaker)
            case .earpiece:
                try session.overrideOutputAudioPort(.none)
                try session.setPreferredInput(session.availableInputs?.first { $0.portType == .builtInMic })
            case .wiredHeadset, .bluetooth:
                try session.overrideOutputAudioPort(.none)
                let input = session.availableInputs?.first { Self.route(of: $0.portType) == route }
                try session.setPreferredInput(input)
            }
        } catch {
            throw .systemError("audio session: \(error)")
        }
    }

    /// The system changed the route (a headset came or went, the session was reconfigured):
    /// apply the policy, then report the change.
    private func routeChanged(reason: AVAudioSession.RouteChangeReason) {
        let current = currentAudioRoute, available = availableRoutes
        if let wanted = policy.withLock({ $0.afterReconfiguration(current: current, available: available) }) {
            try? apply(wanted)
        }
        let now = currentAudioRoute
        guard let previous = last.withLock({ last in defer { last = now }; return last }), previous != now else { return }
        if let engine { engine.delegates.notify { $0.engine(engine, audioRouteDidChange: now, previousRoute: previous) } }
        delegates.notify { [self] in $0.audioRouteSession(self, didChangeRoute: now, from: previous, reason: reason) }
    }
}

/// Whether this device has an earpiece: iPhones do, iPads do not (`uname`'s machine is
/// `iPhone14,2`, `iPad13,1`; no UIKit, which would need the main actor).
private enum DeviceHasEarpiece {
    static let value: Bool = {
        var info = utsname()
        uname(&info)
        let machine = withUnsafeBytes(of: &info.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return machine.hasPrefix("iPhone")
    }()
}
#endif
