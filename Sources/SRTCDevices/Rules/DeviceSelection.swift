import SRTCCore

/// Which device a capture opens for a `deviceId` (seed 001: "the microphone to use, taken from
/// `getDevices(kind: .audioInput)`; omit to use the default device"). Platform-neutral: the Apple
/// microphone layer asks it before it routes the capture, with the devices it lists.
enum DeviceSelection {
    /// - Parameters:
    ///   - deviceId: what the app passed; nil for the system's default.
    ///   - devices: what `getDevices(kind:)` lists for that kind now.
    /// - Returns: the device to open, or nil to leave the system's choice (no `deviceId`).
    /// - Throws: `.notFound` for a `deviceId` the system does not list (unplugged, or from
    ///   another kind).
    static func pick(_ deviceId: String?, among devices: [MediaDevice]) throws(SRTCError) -> MediaDevice? {
        guard let deviceId else { return nil }
        guard let device = devices.first(where: { $0.deviceId == deviceId }) else {
            throw .notFound("no device \(deviceId) among \(devices.map(\.deviceId))")
        }
        return device
    }
}
