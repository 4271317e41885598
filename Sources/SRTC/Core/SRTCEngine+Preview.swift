/// The local camera preview of the engine (the documentation's process-level video APIs): the
/// camera is one piece of hardware, so the engine opens it once and every joined channel whose
/// `publishLocalVideo` switch is on publishes the same capture (encoded once), by itself: at once
/// when joined, else as soon as the channel joins (`PreviewPublishing`).
///
/// ```swift
/// let view = try SRTCVideoRenderer(width: 640, height: 360, title: "Me")
/// let camera = try await srtc.startLocalPreview(frontCamera: true, view: view)
/// srtc.setLocalPreviewMirror(false)           // the front camera shown as others see it
/// try await channel.join(url: url, token: token)   // the preview is published on joining
/// try await other.publishLocalVideo(false)         // but not in this channel
/// srtc.stopLocalPreview()                          // unpublished everywhere, camera closed
/// ```
extension SRTCEngine {
    // MARK: - Preview

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

    /// Previews a camera track the app captures itself (a custom `camera_big` track fed with
    /// `pushFrame`, a camera opened with `createLocalCameraTrack`), facing `direction`, in
    /// `view`; a running preview is replaced. It is published as the camera preview is (joined
    /// channels whose `publishLocalVideo` switch is on, in the background). `stopLocalPreview()`
    /// then leaves the track's capture to the app.
    public func startLocalPreview(track: LocalVideoTrack, direction: CameraDirection = .front, view: VideoRenderer?) {
        closePreviewCamera(preview.start(track: track, direction: direction, view: view, ownsCapture: false))
        previewDidChange()
    }

    /// Shows the preview in `view` instead of the previous one (nil: in none), with the mirror
    /// rule applied to it (the documentation's `updateLocalView:`).
    /// - Throws: `.wrongState` when there is no preview.
    public func updateLocalView(_ view: VideoRenderer?) throws(SRTCError) {
        try preview.update(view: view)
    }

    /// Stops the preview (the documentation's `stopLocalPreview`): the view is let go, the
    /// channels unpublish what the engine published for it (in the background), and a camera the
    /// engine opened is closed.
    public func stopLocalPreview() {
        closePreviewCamera(preview.stop())
        previewDidChange()
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

    /// Brings every joined channel in line with the preview (`PreviewPublishing`).
    @discardableResult
    private func previewDidChange() -> Task<Void, Never> {
        let channels = getChannels()
        return Task {
            await withTaskGroup(of: Void.self) { group in
                for channel in channels { group.addTask { await channel.syncPreviewLogged() } }
            }
        }
    }

    private func closePreviewCamera(_ track: LocalVideoTrack?) {
        #if os(Linux) || (canImport(AVFoundation) && (os(iOS) || os(macOS)))
        (track as? LocalCameraTrack)?.stopCapture()
        #endif
    }
}
