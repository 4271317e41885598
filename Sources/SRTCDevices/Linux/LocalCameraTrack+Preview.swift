#if os(Linux)
import SRTCCore
// The engine preview's camera on Linux (`SRTCEngine.startLocalPreview(frontCamera:view:)`).
// V4L2 says nothing of where a camera faces: every camera is `.front` (webcams face the user).

extension LocalCameraTrack {
    /// Opens the first camera that streams, the default first: one that cannot be opened, or
    /// that sends no frame in time (`CameraFallback`), gives way to the next. `front` does not
    /// choose: there is no direction to choose by, and any camera is the fallback of another.
    /// - Returns: where the camera faces.
    /// - Throws: `.notFound` without cameras, else the last camera's error.
    func openForPreview(front: Bool) async throws(SRTCError) -> CameraDirection {
        let candidates = V4L2DeviceList.cameras(in: "/dev").map { camera in
            CameraFallback.Candidate(direction: .front,
                                     open: { [weak self] () async throws(SRTCError) in try await self?.startCapture(deviceId: camera.deviceId) },
                                     close: { [weak self] in self?.stopCapture() })
        }
        return try await CameraFallback.open(candidates, on: self)
    }

    /// Moves the preview to the next camera (the current one stays if it cannot stream).
    /// - Returns: where the camera now faces.
    func switchForPreview(from direction: CameraDirection) async throws(SRTCError) -> CameraDirection {
        try await switchCamera()
        return .front
    }
}
#endif
