/// The platform's side of the device layer: listing devices, noticing when they change, and
/// opening the speaker. Linux implements it with PulseAudio and V4L2, Apple platforms with
/// AVFoundation; everything above (the device lists' diffing, the events, the mixing) is shared.
package protocol DeviceBackend: Sendable {
    /// The devices of `kind` now; empty when that part of the system is unavailable (no sound
    /// server, no camera).
    func devices(_ kind: MediaDeviceKind) -> [MediaDevice]

    /// Starts watching for devices coming and going; `changed` is called from any thread when a
    /// list may have changed. Stop the returned watch to end it.
    func watch(_ changed: @escaping @Sendable () -> Void) -> DeviceWatch

    /// Starts playing what `mixer` produces on the output `deviceId` (nil: the default one).
    /// - Throws: `.notFound` for an unknown device, `.systemError` when the output cannot open.
    func openAudioOutput(deviceId: String?, mixer: RemoteAudioMixer) throws(SRTCError) -> DeviceWatch
}

/// Something running that `stop()` ends (a watcher, an output): stop returns once it has ended.
package protocol DeviceWatch: Sendable {
    func stop()
}

extension DeviceThread: DeviceWatch {}

/// Where a platform has no device layer: no devices, no events, no speaker.
package struct NoDeviceBackend: DeviceBackend {
    package init() {}

    package func devices(_ kind: MediaDeviceKind) -> [MediaDevice] { [] }

    package func watch(_ changed: @escaping @Sendable () -> Void) -> DeviceWatch { DeviceThread(name: "srtc.devices.none") { _ in } }

    package func openAudioOutput(deviceId: String?, mixer: RemoteAudioMixer) throws(SRTCError) -> DeviceWatch {
        throw .systemError("this platform has no audio output in the SDK")
    }
}
