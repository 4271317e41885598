#if canImport(AVFoundation) && (os(iOS) || os(macOS))
import SRTCCore
import AVFoundation

// The engine preview's camera on Apple platforms (`SRTCEngine.startLocalPreview(frontCamera:view:)`):
// the front or back camera by position, the other one when it cannot be opened.

extension LocalCameraTrack {
    /// Opens the front (or back) camera, else the other one: when the wanted one cannot be
    /// opened or sends no frame in time (`CameraFallback`).
    /// - Returns: where the opened camera faces.
    func openForPreview(front: Bool) async throws(SRTCError) -> CameraDirection {
        let wanted: CameraDirection = front ? .front : .back
        let candidates = [wanted, wanted.opposite].map { direction in
            CameraFallback.Candidate(direction: direction,
                                     open: { [weak self] () async throws(SRTCError) in try await self?.startCapture(facing: direction) },
                                     close: { [weak self] in self?.stopCapture() })
        }
        return try await CameraFallback.open(candidates, on: self)
    }

    /// Switches between front and back; the current camera stays if the other cannot be opened
    /// (`startCapture` replaces the session only once the new one runs).
    func switchForPreview(from direction: CameraDirection) async throws(SRTCError) -> CameraDirection {
        try await startCapture(facing: direction.opposite)
        return direction.opposite
    }

    /// Starts the built-in camera facing `direction`, without falling back to another one. A
    /// running capture keeps running until this one does (make before break), and stays when
    /// this one fails.
    /// - Throws: `.notFound` without a camera on that side, or the camera's error.
    public func startCapture(facing direction: CameraDirection) async throws(SRTCError) {
        let position: AVCaptureDevice.Position = direction == .front ? .front : .back
        guard let device = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: position) else {
            throw .notFound("no \(direction.rawValue) camera")
        }
        try await startCapture(deviceId: device.uniqueID)
    }
}
#endif
