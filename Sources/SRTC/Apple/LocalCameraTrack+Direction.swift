#if canImport(AVFoundation) && (os(iOS) || os(macOS))
import AVFoundation

// The engine preview's camera on Apple platforms (`SRTCEngine.startLocalPreview(frontCamera:view:)`):
// the front or back camera by position, the other one when it cannot be opened.

extension LocalCameraTrack {
    /// Opens the front (or back) camera, else the other one.
    /// - Returns: where the opened camera faces.
    func openForPreview(front: Bool) async throws(SRTCError) -> CameraDirection {
        let wanted: CameraDirection = front ? .front : .back
        do {
            try await startCapture(direction: wanted)
            return wanted
        } catch {
            let other: CameraDirection = front ? .back : .front
            try await startCapture(direction: other)
            return other
        }
    }

    /// Switches between front and back; the current camera stays if the other cannot be opened
    /// (`startCapture` replaces the session only once the new one runs).
    func switchForPreview(from direction: CameraDirection) async throws(SRTCError) -> CameraDirection {
        let other: CameraDirection = direction == .front ? .back : .front
        try await startCapture(direction: other)
        return other
    }

    /// Starts the built-in camera facing `direction`, without falling back to another one.
    private func startCapture(direction: CameraDirection) async throws(SRTCError) {
        let position: AVCaptureDevice.Position = direction == .front ? .front : .back
        guard let device = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: position) else {
            throw .notFound("no \(direction.rawValue) camera")
        }
        try await startCapture(deviceId: device.uniqueID)
    }
}
#endif
