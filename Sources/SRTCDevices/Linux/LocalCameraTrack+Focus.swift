#if os(Linux)
import SRTCCore
import Foundation

// `setCameraFocusPosition:` of the documentation's engine page on a V4L2 camera. V4L2 has no
// focus point of interest: the point is checked as on iOS, then the camera refocuses on the whole
// scene (`V4L2FocusPlan`).

extension LocalCameraTrack {
    /// Refocuses the camera (`setCameraFocusPosition:`). `position` is checked as on iOS (0…1 on
    /// each axis of the picture, (0, 0) its top left; a point outside, or NaN, is ignored), but
    /// V4L2 cannot focus on a point: the camera runs one autofocus (`V4L2_CID_AUTO_FOCUS_START`,
    /// continuous autofocus switched off first) or, without it, turns continuous autofocus on.
    /// - Throws: `.wrongState` while the camera is not capturing, `.notFound` when it has no
    ///   autofocus, `.systemError` when it refuses the value.
    public func setCameraFocusPosition(_ position: CGPoint) throws(SRTCError) {
        guard let device = deviceId else { throw .wrongState("the camera is not capturing") }
        guard CameraControls.pointOfInterest(x: Double(position.x), y: Double(position.y)) != nil else { return }
        try V4L2FocusControl.refocus(path: device)
    }
}
#endif
