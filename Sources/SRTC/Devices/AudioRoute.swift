/// Where the phone plays a call (the documentation's `RTCAudioRoute`). Audio routing exists on
/// iOS only (`AudioRouteSession`); Linux plays on the PulseAudio sink `startAudioPlayback` names.
public enum AudioRoute: String, Sendable, CaseIterable {
    case speaker
    case earpiece
    case wiredHeadset
    case bluetooth
}

/// The routing rules of the documentation's `switchAudioRoute:`, apart from the audio session
/// that applies them (platform-neutral, so they are tested on Linux):
/// - the speaker or the earpiece, once chosen by the app, is kept, also after the system
///   reconfigured its audio session (an interruption, a category change);
/// - otherwise, after a reconfiguration, an external device that is present is restored,
///   the Bluetooth headset before a wired one; with neither, the system's choice stands;
/// - an external route can be chosen only while it is present.
package struct AudioRoutePolicy: Sendable {
    /// The built-in route the app chose, kept until it chooses an external one.
    package private(set) var chosenBuiltIn: AudioRoute?

    package init() {}

    /// Records the app's choice of `route` among the `available` ones.
    /// - Returns: the route to ask the system for.
    /// - Throws: `.notFound` for a route that is not present (a headset not connected, the
    ///   earpiece of a device without one); the previous choice stays.
    package mutating func choose(_ route: AudioRoute, available: Set<AudioRoute>) throws(SRTCError) -> AudioRoute {
        guard available.contains(route) else { throw .notFound("audio route \(route.rawValue)") }
        chosenBuiltIn = route == .speaker || route == .earpiece ? route : nil
        return route
    }

    /// The route to ask for after the system reconfigured the session and now plays on
    /// `current`, or nil to leave it.
    package func afterReconfiguration(current: AudioRoute, available: Set<AudioRoute>) -> AudioRoute? {
        let wanted: AudioRoute?
        if let chosenBuiltIn, available.contains(chosenBuiltIn) {
            wanted = chosenBuiltIn
        } else if available.contains(.bluetooth) {
            wanted = .bluetooth
        } else if available.contains(.wiredHeadset) {
            wanted = .wiredHeadset
        } else {
            wanted = nil
        }
        return wanted == current ? nil : wanted
    }
}
