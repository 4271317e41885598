/// The local camera preview of the engine (the documentation's process-level video APIs): the
/// camera is one piece of hardware, so the engine opens it once and every channel publishes the
/// same capture (`publishLocalTrack(localPreviewTrack)`, encoded once).
///
/// ```swift
/// let view = try SRTCVideoRenderer(width: 640, height: 360, title: "Me")
/// let camera = try await srtc.startLocalPreview(frontCamera: true, view: view)
/// srtc.setLocalPreviewMirror(false)           // the front camera shown as others see it
/// try await channel.publishLocalTrack(camera)
/// srtc.stopLocalPreview()
/// ```
extension SRTCEngine {
    // MARK: - Preview

    #if os(Linux) || (canImport(AVFoundation) && (os(iOS) || os(macOS)))
    /// Opens a camera and shows it in `view` (the documentation's `startLocalPreview:view:`); a
    /// running preview is replaced. When the camera asked for cannot be opened the other one is
    /// tried; `currentCameraDirection` tells which one runs. The track is not published: each
    /// channel that should send it calls `publishLocalTrack` with it.
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

    /// Previews a camera track the app captures itself (a custom `camera_big` track fed with
    /// `pushFrame`, a camera opened with `createLocalCameraTrack`), facing `direction`, in
    /// `view`; a running preview is replaced. `stopLocalPreview()` then leaves the track's
    /// capture to the app.
    public func startLocalPreview(track: LocalVideoTrack, direction: CameraDirection = .front, view: VideoRenderer?) {
        closePreviewCamera(preview.start(track: track, direction: direction, view: view, ownsCapture: false))
    }

    /// Shows the preview in `view` instead of the previous one (nil: in none), with the mirror
    /// rule applied to it (the documentation's `updateLocalView:`).
    /// - Throws: `.wrongState` when there is no preview.
    public func updateLocalView(_ view: VideoRenderer?) throws(SRTCError) {
        try preview.update(view: view)
    }

    /// Stops the preview (the documentation's `stopLocalPreview`): the view is let go and a
    /// camera the engine opened is closed, also for the channels that publish it.
    public func stopLocalPreview() {
        closePreviewCamera(preview.stop())
    }

    /// The front camera's mirror preference for the preview, on by default (the documentation's
    /// `setLocalPreviewMirror:`): the front camera is shown mirrored when true, the back camera
    /// never. Only the view is flipped (`MirrorableRenderer`), never what channels publish; the
    /// preference is kept across switches and previews.
    public func setLocalPreviewMirror(_ mirror: Bool) {
        preview.setMirror(mirror)
    }

    /// Whether the preview's view is shown mirrored now.
    public var isLocalPreviewMirrored: Bool { LocalPreview.mirrors(preview.direction, preference: preview.mirrorFront) }

    /// Where the previewed camera faces, after any fallback (the documentation's
    /// `currentCameraDirection`); nil without a preview.
    public var currentCameraDirection: CameraDirection? { preview.direction }

    /// The previewed camera track, or nil.
    public var localPreviewTrack: LocalVideoTrack? { preview.current?.track }

    // MARK: - Internals

    private func closePreviewCamera(_ track: LocalVideoTrack?) {
        #if os(Linux) || (canImport(AVFoundation) && (os(iOS) || os(macOS)))
        (track as? LocalCameraTrack)?.stopCapture()
        #endif
    }
}
