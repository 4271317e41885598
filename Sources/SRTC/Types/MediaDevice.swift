/// What a device does: `getDevices(kind:)` lists one kind at a time.
public enum MediaDeviceKind: String, Sendable, CaseIterable {
    /// Cameras (V4L2 on Linux, AVCaptureDevice on Apple platforms).
    case videoInput
    /// Microphones and other capture sources (PulseAudio sources on Linux, which include the
    /// monitor of each output).
    case audioInput
    /// Speakers and other outputs (PulseAudio sinks on Linux).
    case audioOutput
}

/// A camera, microphone or speaker the system offers. Pass `deviceId` to the calls that take one
/// (`requestOpenCamera(deviceId:)`, `LocalCameraTrack.startCapture(deviceId:)`,
/// `startAudioPlayback(deviceId:)`, …).
public struct MediaDevice: Sendable, Hashable, CustomStringConvertible {
    /// Stable identifier: the device node on Linux (`/dev/video0`), the PulseAudio source or sink
    /// name, or AVFoundation's `uniqueID`.
    public let deviceId: String
    /// Camera, microphone or speaker.
    public let kind: MediaDeviceKind
    /// A name to show (the driver's card name, PulseAudio's description, `localizedName`).
    public let label: String
    /// Whether the system uses it when no `deviceId` is given.
    public let isDefault: Bool

    public init(deviceId: String, kind: MediaDeviceKind, label: String, isDefault: Bool = false) {
        self.deviceId = deviceId
        self.kind = kind
        self.label = label
        self.isDefault = isDefault
    }

    public var description: String { "\(kind.rawValue) \(deviceId) (\(label))\(isDefault ? " default" : "")" }

    /// The devices in `new` that are not in `old` and those gone, matched by kind and id (a
    /// label or default change is not an addition).
    static func changes(from old: [MediaDevice], to new: [MediaDevice]) -> (added: [MediaDevice], removed: [MediaDevice]) {
        func key(_ d: MediaDevice) -> String { "\(d.kind.rawValue)\u{0}\(d.deviceId)" }
        let oldKeys = Set(old.map(key)), newKeys = Set(new.map(key))
        return (new.filter { !oldKeys.contains(key($0)) }, old.filter { !newKeys.contains(key($0)) })
    }
}
