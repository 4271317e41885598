import SRTCCore

/// The preview of the device camera: the engine keeps the preview's rules and publishing
/// (`SRTCEngine+Preview.swift`, `startLocalPreview(track:direction:view:)`); opening the camera,
/// falling back to the other one and switching are this module's, on its `LocalCameraTrack`.
extension SRTCEngine {
    #if os(Linux) || (canImport(AVFoundation) && (os(iOS) || os(macOS)))
    /// Opens a camera and shows it in `view` (the documentation's `startLocalPreview:view:`); a
    /// running preview is replaced. When the camera asked for cannot be opened the other one is
    /// tried, and so is one that opens but sends no frame within `CameraFallback.firstFrameTimeout`;
    /// `currentCameraDirection` tells which one runs. Every joined channel whose
    /// `publishLocalVideo` switch is on publishes it before this returns; a channel that joins
    /// later publishes it on joining.
    ///
    /// Linux: the cameras of `getDevices(kind: .videoInput)` are tried in order, the default
    /// first; V4L2 does not say where a camera faces, so every one counts as `.front` and
    /// `frontCamera` does not choose. iOS and macOS: the front or back camera, then the other.
    /// - Parameters:
    ///   - frontCamera: the front camera (true) or the back one.
    ///   - view: where the preview is shown (held weakly, as by `add(videoRenderer:)`); nil shows
    ///     it nowhere yet (`updateLocalView(_:)`).
    ///   - preset: the capture size and rate, also what channels publish.
    /// - Returns: the camera track.
    /// - Throws: `.notFound` when there is no camera, the last camera's error when none opens.
    @discardableResult
    public func startLocalPreview(frontCamera: Bool = true, view: VideoRenderer?, preset: CameraPreset = .h720p)
        async throws(SRTCError) -> LocalCameraTrack {
        let track = createLocalCameraTrack(preset: preset)
        let direction = try await track.openForPreview(front: frontCamera)
        closePreviewCamera(preview.start(track: track, direction: direction, view: view, ownsCapture: true))
        await previewDidChange().value
        return track
    }

    /// Switches the previewed camera (the documentation's `switchCamera`): Linux to the next
    /// camera, iOS and macOS between front and back. Only once the target streams; if it cannot,
    /// the current camera stays. The mirror rule follows the new camera.
    /// - Throws: `.wrongState` without a preview the engine opened, or the target's error.
    public func switchCamera() async throws(SRTCError) {
        guard let current = preview.current, current.ownsCapture, let camera = current.track as? LocalCameraTrack else {
            throw .wrongState("no camera preview opened by the engine")
        }
        preview.cameraSwitched(to: try await camera.switchForPreview(from: current.direction))
    }
    #endif
}
