import SRTCCore

#if !os(Linux) && !(canImport(AVFoundation) && (os(iOS) || os(macOS)))
// MARK: - Platforms without camera capture

/// Where the SDK opens no camera, the camera track is one the app feeds (`pushFrame`), so code
/// written against `LocalCameraTrack` (SMeeting's `requestOpenCamera`) builds everywhere.
public typealias LocalCameraTrack = LocalCustomVideoTrack

extension LocalCustomVideoTrack {
    /// No device is ever captured here.
    public var deviceId: String? { nil }
}
#endif
