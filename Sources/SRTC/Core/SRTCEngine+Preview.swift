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
///
/// Opening the device camera (`startLocalPreview(frontCamera:view:preset:)`, `switchCamera()`) is
/// `SRTCDevices`' (`SRTCEngine+CameraPreview.swift`); the engine keeps the preview's rules.
extension SRTCEngine {
    // MARK: - Preview

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

    /// Brings every joined channel in line with the preview (`PreviewPublishing`); also called by
    /// `SRTCDevices`' camera preview.
    @discardableResult
    package func previewDidChange() -> Task<Void, Never> {
        let channels = getChannels()
        return Task {
            await withTaskGroup(of: Void.self) { group in
                for channel in channels { group.addTask { await channel.syncPreviewLogged() } }
            }
        }
    }

    /// Stops the capture of a camera the preview opened (`SRTCDevices`' device camera, which the
    /// engine knows only as a `PreviewCapture`).
    package func closePreviewCamera(_ track: LocalVideoTrack?) {
        (track as? PreviewCapture)?.stopCapture()
    }
}
