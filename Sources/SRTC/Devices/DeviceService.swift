import Synchronization

/// The engine's devices: the hot-plug events (`deviceDelegates`) and the speaker that plays the
/// mixed remote audio. One per engine, shared by its channels through the context.
///
/// The platform's drivers are not the engine's: `SRTCDevices` puts its backend in the slot on its
/// first device call (`install(_:)`), so the engine imports no device library; until then the
/// engine has no devices and no speaker (`NoDeviceBackend`), and remote audio is not mixed.
package final class DeviceService: Sendable {
    // MARK: - Types

    /// A class around the existential, which `AtomicLazyReference` cannot hold directly.
    private final class Installed: Sendable {
        let backend: DeviceBackend
        init(_ backend: DeviceBackend) { self.backend = backend }
    }

    private struct State: Sendable {
        weak var engine: SRTCEngine?
        var known: [MediaDevice] = []
        var watch: DeviceWatch?
        var output: DeviceWatch?
        var outputDevice: String?
    }

    // MARK: - Properties

    private let installed = AtomicLazyReference<Installed>()
    package let delegates: MulticastDelegate<DeviceChangeDelegate>
    package let mixer = RemoteAudioMixer()
    private let state = Mutex(State())
    /// Whether remote audio goes to the mixer (checked per 20 ms buffer, without the lock).
    private let playing = Atomic<Bool>(false)

    /// - Parameter backend: the devices and speaker (nil: none until `install(_:)`).
    init(backend: DeviceBackend?, delegates: MulticastDelegate<DeviceChangeDelegate>) {
        self.delegates = delegates
        if let backend { _ = installed.storeIfNil(Installed(backend)) }
    }

    /// The backend in the slot, or `NoDeviceBackend` while it is empty.
    package var backend: DeviceBackend { installed.load()?.backend ?? NoDeviceBackend() }

    /// Fills the slot with `make`'s backend when it is empty (once per engine; a backend given at
    /// init, a test's, stays).
    package func install(_ make: () -> DeviceBackend) {
        guard installed.load() == nil else { return }
        _ = installed.storeIfNil(Installed(make()))
    }

    // MARK: - Hot-plug

    /// Every device now, all kinds.
    package func allDevices() -> [MediaDevice] {
        MediaDeviceKind.allCases.flatMap { backend.devices($0) }
    }

    /// Starts watching (once): the current devices are the baseline, later changes are events.
    package func startWatching(engine: SRTCEngine) {
        let start = state.withLock { s -> Bool in
            s.engine = engine
            return s.watch == nil
        }
        guard start else { return }
        let baseline = allDevices()
        let watch = backend.watch { [weak self] in self?.refresh() }
        state.withLock {
            $0.known = baseline
            $0.watch = watch
        }
    }

    /// Lists the devices again and reports the difference.
    package func refresh() {
        let now = allDevices()
        let (changes, engine) = state.withLock { s -> ((added: [MediaDevice], removed: [MediaDevice]), SRTCEngine?) in
            let changes = MediaDevice.changes(from: s.known, to: now)
            s.known = now
            return (changes, s.engine)
        }
        guard let engine else { return }
        for device in changes.removed { delegates.notify { $0.engine(engine, didRemoveDevice: device) } }
        for device in changes.added { delegates.notify { $0.engine(engine, didAddDevice: device) } }
    }

    // MARK: - Speaker

    /// Plays the mixed remote audio on `deviceId`; a running output moves to the new device.
    package func startPlayback(deviceId: String?) throws(SRTCError) {
        stopPlayback()
        let output = try backend.openAudioOutput(deviceId: deviceId, mixer: mixer)
        state.withLock {
            $0.output = output
            $0.outputDevice = deviceId
        }
        playing.store(true, ordering: .releasing)
    }

    package func stopPlayback() {
        playing.store(false, ordering: .releasing)
        let output = state.withLock { s -> DeviceWatch? in
            defer { s.output = nil }
            return s.output
        }
        output?.stop()
        mixer.reset()
    }

    package var isPlaying: Bool { playing.load(ordering: .acquiring) }

    /// A remote audio track's decoded buffer (its receive thread), after `senderPause` samples
    /// of media time the sender skipped (see `RemoteAudioMixer.push`).
    func remoteAudio(_ source: ObjectIdentifier, _ buffer: AudioPCMBuffer, senderPause: Int) {
        guard playing.load(ordering: .relaxed) else { return }
        mixer.push(source, buffer, senderPause: senderPause)
    }

    /// Stops everything (the engine is destroyed).
    func shutdown() {
        stopPlayback()
        let watch = state.withLock { s -> DeviceWatch? in
            defer { s.watch = nil }
            return s.watch
        }
        watch?.stop()
    }
}
