import SRTC

/// Where the microphone, camera and screen come from. On Apple platforms the devices are captured
/// through SRTC. On Linux a `deviceId` (from `getDevices(kind:)`) captures that PulseAudio source
/// or V4L2 camera, and no `deviceId` the system's default one, as seed 001 says; only where the
/// system has no such device at all (a bot or recorder on a server: no sound server, no camera)
/// does no `deviceId` give a custom track the app feeds (`pushMicAudio`, `pushCameraFrame`).
extension SMeetingEngine {
    /// The devices of one kind, the system's default marked (SRTC's `getDevices(kind:)`).
    public func getDevices(kind: MediaDeviceKind) -> [MediaDevice] { srtc.getDevices(kind: kind) }

    /// Hot-plug events: devices added and removed (SRTC's `deviceDelegates`; the first access
    /// starts watching).
    public var deviceDelegates: MulticastDelegate<DeviceChangeDelegate> { srtc.deviceDelegates }

    /// `switchCamera()` without a deviceId on iOS and macOS: `open` starts the camera facing the
    /// other way while the current one runs (the track replaces its capture only once the new one
    /// runs), and the side is remembered only once it did. A failed toggle leaves the current
    /// camera on, and the next toggle aims at the same side again. Platform-neutral, so tested on
    /// Linux; the Apple layer passes `LocalCameraTrack.startCapture(facing:)`.
    func toggleCameraFacing(open: (CameraDirection) async throws(SRTCError) -> Void) async throws(SRTCError) {
        let target = state.withLock { $0.cameraFacing.opposite }
        try await open(target)
        state.withLock { $0.cameraFacing = target }
    }

    /// Where the camera faces as far as `switchCamera()` toggled it.
    var cameraFacing: CameraDirection { state.withLock { $0.cameraFacing } }

    /// One way `requestOpenCamera` tries to open the camera on iOS and macOS.
    enum CameraOpenAttempt: Hashable, Sendable {
        case device(String)
        case facing(CameraDirection)
        case systemDefault
    }

    /// `requestOpenCamera` on iOS and macOS: a `deviceId` names the camera; without one, the
    /// camera facing the side `switchCamera()` last reached (the front one at first), and where
    /// there is none on that side (a Mac with an external camera only) the system's default.
    /// Only "not found" moves on to the next attempt; any other error (access denied) is thrown.
    /// Platform-neutral, so tested on Linux.
    func openCamera(deviceId: String?, open: (CameraOpenAttempt) async throws(SRTCError) -> Void) async throws(SRTCError) {
        let attempts: [CameraOpenAttempt] = deviceId.map { [.device($0)] } ?? [.facing(cameraFacing), .systemDefault]
        for (index, attempt) in attempts.enumerated() {
            do {
                try await open(attempt)
                return
            } catch .notFound where index < attempts.count - 1 {
                continue
            }
        }
    }

    #if os(Linux) || (canImport(AVFoundation) && (os(iOS) || os(macOS)))
    func makeMicTrack(deviceId: String?, preset: MicPreset) async throws -> LocalAudioTrack {
        #if os(Linux)
        guard deviceId != nil || !srtc.getDevices(kind: .audioInput).isEmpty else {
            return srtc.createLocalCustomAudioTrack(desc: "mic", preset: preset)
        }
        #endif
        let track = srtc.createLocalMicrophoneTrack(preset: preset)
        do { try await track.startCapture(deviceId: deviceId) } catch { throw SMeetingError.deviceError("microphone: \(error)") }
        return track
    }

    func makeCameraTrack(deviceId: String?, preset: CameraPreset) async throws -> LocalCameraTrack {
        let track = srtc.createLocalCameraTrack(preset: preset)
        #if os(Linux)
        // No camera at all: the camera track captures nothing and the app feeds it (`pushCameraFrame`).
        guard deviceId != nil || !srtc.getDevices(kind: .videoInput).isEmpty else { return track }
        do { try await track.startCapture(deviceId: deviceId) } catch { throw SMeetingError.deviceError("camera: \(error)") }
        #else
        do {
            try await openCamera(deviceId: deviceId) { (attempt: CameraOpenAttempt) async throws(SRTCError) in
                switch attempt {
                case .device(let id): try await track.startCapture(deviceId: id)
                case .facing(let direction): try await track.startCapture(facing: direction)
                case .systemDefault: try await track.startCapture(deviceId: nil)
                }
            }
        } catch {
            throw SMeetingError.deviceError("camera: \(error)")
        }
        #endif
        return track
    }

    func stopCapture(_ track: LocalTrack?) {
        (track as? LocalMicrophoneTrack)?.stopCapture()
        (track as? LocalCameraTrack)?.stopCapture()
        #if os(Linux) || (canImport(ScreenCaptureKit) && os(macOS))
        (track as? LocalScreenTrack)?.stopCapture()
        #endif
    }

    /// Moves a device camera to `deviceId`; without one, iOS and macOS toggle front and back, Linux
    /// takes the next camera. A camera track the app feeds (Linux without a camera) has nothing to
    /// switch.
    func switchCameraDevice(_ camera: LocalCameraTrack, deviceId: String?) async throws {
        do {
            #if os(Linux)
            guard camera.deviceId != nil else { return }
            try await camera.switchCamera(deviceId: deviceId)
            #else
            if let deviceId { return try await camera.switchCamera(deviceId: deviceId) }
            try await toggleCameraFacing { (direction: CameraDirection) async throws(SRTCError) in
                try await camera.startCapture(facing: direction)
            }
            #endif
        } catch {
            throw SMeetingError.deviceError("camera: \(error)")
        }
    }
    #else
    func makeMicTrack(deviceId: String?, preset: MicPreset) async throws -> LocalAudioTrack {
        srtc.createLocalCustomAudioTrack(desc: "mic", preset: preset)
    }

    func makeCameraTrack(deviceId: String?, preset: CameraPreset) async throws -> LocalCameraTrack {
        srtc.createLocalCustomVideoTrack(desc: "camera_big", preset: preset)
    }

    func stopCapture(_ track: LocalTrack?) {}

    func switchCameraDevice(_ camera: LocalCameraTrack, deviceId: String?) async throws {}
    #endif
}
