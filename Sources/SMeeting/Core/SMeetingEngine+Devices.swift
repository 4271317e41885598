import SRTC

/// Where the microphone and camera come from: the device on Apple platforms, a custom track the
/// app feeds on Linux (which has no capture in the SDK).
extension SMeetingEngine {
    #if canImport(AVFoundation) && (os(iOS) || os(macOS))
    func makeMicTrack(preset: MicPreset) async throws -> LocalAudioTrack {
        let track = srtc.createLocalMicrophoneTrack(preset: preset)
        do { try await track.startCapture() } catch { throw SMeetingError.deviceError("microphone: \(error)") }
        return track
    }

    func makeCameraTrack(preset: CameraPreset) async throws -> LocalVideoTrack {
        let track = srtc.createLocalCameraTrack(preset: preset)
        do { try await track.startCapture() } catch { throw SMeetingError.deviceError("camera: \(error)") }
        return track
    }

    func stopCapture(_ track: LocalTrack?) {
        (track as? LocalMicrophoneTrack)?.stopCapture()
        (track as? LocalCameraTrack)?.stopCapture()
    }

    /// Toggles between the front and back cameras (SRTC opens cameras by position, so a
    /// `deviceId` selects nothing more here).
    func switchCameraDevice(_ track: LocalVideoTrack, deviceId: String?) async throws {
        guard let camera = track as? LocalCameraTrack else { return }
        let back = state.withLock { s -> Bool in s.cameraBack.toggle(); return s.cameraBack }
        camera.stopCapture()
        do { try await camera.startCapture(position: back ? .back : .front) } catch { throw SMeetingError.deviceError("camera: \(error)") }
    }
    #else
    func makeMicTrack(preset: MicPreset) async throws -> LocalAudioTrack {
        srtc.createLocalCustomAudioTrack(desc: "mic", preset: preset)
    }

    func makeCameraTrack(preset: CameraPreset) async throws -> LocalVideoTrack {
        srtc.createLocalCustomVideoTrack(desc: "camera_big", preset: preset)
    }

    func stopCapture(_ track: LocalTrack?) {}

    func switchCameraDevice(_ track: LocalVideoTrack, deviceId: String?) async throws {}
    #endif
}
