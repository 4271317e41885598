#if os(Linux)
import SRTCCore
// The exposure control of the documentation's engine page (`setCameraExposureRatio:`) on a V4L2
// camera (the focus is in LocalCameraTrack+Focus.swift). Zoom and torch are Apple-only: webcams
// have neither a torch nor a zoom worth the name.

extension LocalCameraTrack {
    /// Exposure bias in EV stops, −8.0–8.0 (`setCameraExposureRatio:`), as `V4L2ExposurePlan`
    /// sets it: the camera's exposure-bias control when it has one, else its exposure time
    /// (2^EV times the time it used when first moved; 0 gives it back to the automatic mode).
    /// Clamped to the documented range and the control's; NaN is ignored.
    /// - Throws: `.wrongState` while the camera is not capturing, `.notFound` when it has no
    ///   exposure control, `.systemError` when it refuses the value.
    public func setCameraExposureRatio(_ ratio: Double) throws(SRTCError) {
        guard let device = deviceId else { throw .wrongState("the camera is not capturing") }
        try exposureBase.withLock { kept throws(SRTCError) in
            var base = kept.flatMap { $0.deviceId == device ? $0.value : nil }
            try V4L2ExposureControl.set(ev: ratio, path: device, base: &base)
            kept = base.map { (device, $0) }
        }
    }
}
#endif
