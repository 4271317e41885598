import SRTCCore
#if canImport(AVFoundation) && os(iOS)
import CoreGraphics
#else
import Foundation
#endif

/// The camera controls of the documentation's engine page, on the camera the engine previews
/// (`startLocalPreview`): the same controls as the camera track's own, for apps that keep to the
/// engine. Exposure and focus on Linux and iOS (on Linux the focus point is checked but not
/// honoured: see `V4L2FocusPlan`); zoom and torch on iOS only (not compiled here).
///
/// ```swift
/// try await srtc.startLocalPreview(frontCamera: true, view: view)
/// try srtc.setCameraExposureRatio(1)      // one stop brighter
/// ```
extension SRTCEngine {
    #if os(Linux) || (canImport(AVFoundation) && os(iOS))
    /// The previewed camera's exposure bias, −8.0–8.0 EV (`setCameraExposureRatio:`); see
    /// `LocalCameraTrack.setCameraExposureRatio(_:)`.
    /// - Throws: `.wrongState` without a previewed camera track (or while it is not capturing),
    ///   `.notFound` when the camera has no exposure control, `.systemError` when it refuses.
    public func setCameraExposureRatio(_ ratio: Double) throws(SRTCError) {
        try previewCamera().setCameraExposureRatio(ratio)
    }

    /// Focuses the previewed camera on `position`, 0…1 on each axis (`setCameraFocusPosition:`);
    /// see `LocalCameraTrack.setCameraFocusPosition(_:)` (on Linux: one autofocus of the whole
    /// scene, the point being checked only).
    /// - Throws: `.wrongState` without a previewed camera track (or while it is not capturing),
    ///   `.notFound` when the camera has no focus control, `.systemError` when it refuses.
    public func setCameraFocusPosition(_ position: CGPoint) throws(SRTCError) {
        try previewCamera().setCameraFocusPosition(position)
    }

    /// The previewed camera track, if it is one the SDK captures.
    private func previewCamera() throws(SRTCError) -> LocalCameraTrack {
        guard let camera = preview.current?.track as? LocalCameraTrack else { throw .wrongState("no camera preview") }
        return camera
    }
    #endif

    #if canImport(AVFoundation) && os(iOS)
    /// The previewed camera's zoom, 1.0–5.0 (`setCameraZoomRatio:`).
    public func setCameraZoomRatio(_ ratio: Double) throws(SRTCError) {
        try previewCamera().setCameraZoomRatio(ratio)
    }

    /// The previewed camera's torch (`enableCameraTorch:`).
    public func enableCameraTorch(_ enabled: Bool) throws(SRTCError) {
        try previewCamera().enableCameraTorch(enabled)
    }
    #endif
}
