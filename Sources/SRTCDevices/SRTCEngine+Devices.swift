import SRTCCore

/// Devices: the system's cameras, microphones and speakers, their hot-plug events, the device
/// tracks and the speaker that plays remote audio.
///
/// On Linux the microphone and speaker are PulseAudio's (which PipeWire also serves; the server
/// is `Configuration.audioServer`, else libpulse's default), cameras are V4L2 devices and the
/// screen is an X11 display; on Apple platforms all come from AVFoundation.
///
/// ```swift
/// let cameras = srtc.getDevices(kind: .videoInput)
/// let camera = srtc.createLocalCameraTrack()
/// try await camera.startCapture(deviceId: cameras.first?.deviceId)
/// try srtc.startAudioPlayback()            // every subscribed remote audio track, mixed
/// srtc.deviceDelegates.add(delegate: self) // hot-plug events
/// ```
extension SRTCEngine {
    // MARK: - Devices

    /// The devices of one kind (cameras, microphones or speakers), the system's default marked.
    /// Empty, without error, when there is none or that part of the system is unavailable (no
    /// camera, no sound server). Blocks briefly (a query to the sound server).
    public func getDevices(kind: MediaDeviceKind) -> [MediaDevice] {
        context.platformDevices.backend.devices(kind)
    }

    /// Weak multicast of `DeviceChangeDelegate`: devices added and removed. The first access
    /// starts watching (the devices present then are not reported).
    public var deviceDelegates: MulticastDelegate<DeviceChangeDelegate> {
        context.platformDevices.startWatching(engine: self)
        return context.devices.delegates
    }

    #if os(Linux) || (canImport(AVFoundation) && (os(iOS) || os(macOS)))
    /// A camera as a local video track (`camera_big`, simulcast). Call `startCapture(deviceId:)`.
    public func createLocalCameraTrack(preset: CameraPreset = .h720p) -> LocalCameraTrack {
        LocalCameraTrack(desc: TrackDesc.cameraBig, preset: preset, simulcast: true, context: context)
    }

    /// The microphone as a local audio track (`mic`). Call `startCapture(deviceId:)`.
    public func createLocalMicrophoneTrack(preset: MicPreset = .music) -> LocalMicrophoneTrack {
        LocalMicrophoneTrack(desc: TrackDesc.mic, preset: preset, context: context)
    }
    #endif

    // MARK: - Speaker

    /// Plays remote audio: every subscribed remote audio track of every channel, mixed, on
    /// `deviceId` (an `.audioOutput` device; nil: the system's default). Calling it again moves
    /// playback to another device. `audioRenderProcessor` has run before; `AudioRenderer`s still
    /// get each track's own buffers.
    /// - Throws: `.notFound` for an unknown device, `.systemError` when the output cannot open
    ///   (no sound server).
    public func startAudioPlayback(deviceId: String? = nil) throws(SRTCError) {
        try context.platformDevices.startPlayback(deviceId: deviceId)
    }

    /// Stops playing remote audio.
    public func stopAudioPlayback() {
        context.devices.stopPlayback()
    }

    /// Whether remote audio is being played.
    public var isAudioPlaybackRunning: Bool { context.devices.isPlaying }

    /// The speaker's mute switch: true plays silence (subscriptions, renderers and statistics
    /// are unaffected). SMeeting's `toggleRemoteAudioMute(_:)` sets it.
    public var remoteAudioMuted: Bool {
        get { context.devices.mixer.isMuted }
        set { context.devices.mixer.isMuted = newValue }
    }
}
