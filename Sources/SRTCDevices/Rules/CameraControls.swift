import SRTCCore

/// The ranges of the documentation's camera controls (`setCameraZoomRatio:` 1.0–5.0,
/// `setCameraExposureRatio:` −8.0–8.0, `setCameraFocusPosition:` a point of the picture),
/// narrowed to what the camera supports. Platform-neutral so that it is tested on Linux. All four
/// controls exist on iOS (`Apple/LocalCameraTrack+Controls.swift`); on Linux the exposure and the
/// focus do, through V4L2's standard controls (`V4L2ExposurePlan`, `V4L2FocusPlan`: V4L2 has no
/// focus point of interest, so the point is checked and the camera refocuses on the scene), and
/// zoom and torch do not (webcams have no torch).
enum CameraControls {
    /// The documented zoom range.
    static let zoomRange = 1.0...5.0
    /// The documented exposure range (EV stops).
    static let exposureRange = -8.0...8.0

    /// `ratio` within the documented range and the camera's `supported` one; nil for NaN.
    static func clamp(_ ratio: Double, documented: ClosedRange<Double>, supported: ClosedRange<Double>) -> Double? {
        guard !ratio.isNaN else { return nil }
        let low = max(documented.lowerBound, supported.lowerBound), high = min(documented.upperBound, supported.upperBound)
        guard low <= high else { return nil }
        return min(max(ratio, low), high)
    }

    /// A focus position as the capture device wants it: 0…1 on each axis of the picture, (0, 0)
    /// its top left; nil outside it (or NaN).
    static func pointOfInterest(x: Double, y: Double) -> (x: Double, y: Double)? {
        guard (0...1).contains(x), (0...1).contains(y) else { return nil }
        return (x, y)
    }
}
