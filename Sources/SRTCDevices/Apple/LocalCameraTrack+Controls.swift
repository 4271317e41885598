#if canImport(AVFoundation) && os(iOS)
import SRTCCore
import AVFoundation
import CoreGraphics

/// The camera controls of the documentation's engine page on the capturing `AVCaptureDevice`
/// (iOS only: not compiled here). Values are clamped by `CameraControls` (tested on Linux); NaN
/// is ignored. Each throws `.wrongState` while the camera is not capturing, `.notFound` when the
/// camera lacks the control, `.systemError` when it cannot be configured.
extension LocalCameraTrack {
    /// Zoom, 1.0–5.0 (`setCameraZoomRatio:`), within what the camera supports.
    public func setCameraZoomRatio(_ ratio: Double) throws(SRTCError) {
        try configure { device in
            let supported = Double(device.minAvailableVideoZoomFactor)...Double(device.maxAvailableVideoZoomFactor)
            guard let value = CameraControls.clamp(ratio, documented: CameraControls.zoomRange, supported: supported) else { return }
            device.videoZoomFactor = CGFloat(value)
        }
    }

    /// Exposure bias in EV stops, −8.0–8.0 (`setCameraExposureRatio:`), within the camera's range.
    public func setCameraExposureRatio(_ ratio: Double) throws(SRTCError) {
        try configure { device in
            let supported = Double(device.minExposureTargetBias)...Double(device.maxExposureTargetBias)
            guard let value = CameraControls.clamp(ratio, documented: CameraControls.exposureRange, supported: supported) else { return }
            device.setExposureTargetBias(Float(value))
        }
    }

    /// Focuses (and meters exposure) on `position`: 0…1 on each axis of the picture, (0, 0) its
    /// top left (`setCameraFocusPosition:`). A point outside is ignored.
    public func setCameraFocusPosition(_ position: CGPoint) throws(SRTCError) {
        try configure { device in
            guard let point = CameraControls.pointOfInterest(x: Double(position.x), y: Double(position.y)) else { return }
            guard device.isFocusPointOfInterestSupported else { throw SRTCError.notFound("focus point on this camera") }
            device.focusPointOfInterest = CGPoint(x: point.x, y: point.y)
            device.focusMode = .autoFocus
            if device.isExposurePointOfInterestSupported {
                device.exposurePointOfInterest = CGPoint(x: point.x, y: point.y)
                device.exposureMode = .autoExpose
            }
        }
    }

    /// Turns the torch on or off (`enableCameraTorch:`); `.notFound` on a camera without one.
    public func enableCameraTorch(_ enabled: Bool) throws(SRTCError) {
        try configure { device in
            guard device.hasTorch else { throw SRTCError.notFound("torch on this camera") }
            device.torchMode = enabled ? .on : .off
        }
    }

    private func configure(_ body: (AVCaptureDevice) throws -> Void) throws(SRTCError) {
        guard let id = deviceId, let device = AVCaptureDevice(uniqueID: id) else { throw .wrongState("the camera is not capturing") }
        do {
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }
            try body(device)
        } catch let error as SRTCError {
            throw error
        } catch {
            throw .systemError("camera: \(error)")
        }
    }
}
#endif
