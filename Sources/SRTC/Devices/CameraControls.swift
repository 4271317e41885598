/// The ranges of the documentation's camera controls (`setCameraZoomRatio:` 1.0–5.0,
/// `setCameraExposureRatio:` −8.0–8.0, `setCameraFocusPosition:` a point of the picture),
/// narrowed to what the camera supports. Platform-neutral so that it is tested on Linux; the
/// controls themselves exist on iOS only (`LocalCameraTrack+Controls.swift`): V4L2 cameras
/// expose such controls per driver, and the Linux SDK does not wrap them.
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
