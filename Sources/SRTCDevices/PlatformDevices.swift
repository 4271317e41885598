import SRTCCore

/// The platform's drivers in the engine's device slot. The engine imports no device library: its
/// `DeviceService` has no backend until this module's first device call on an engine
/// (`getDevices`, `deviceDelegates`, `startAudioPlayback`) installs the platform's, as the render
/// module fills the camera-filter slot on its first call (docs/architecture.md, "The SDK's modules").
extension EngineContext {
    /// The engine's devices, with the platform's backend installed (once per engine).
    var platformDevices: DeviceService {
        devices.install { Self.platformBackend(configuration, logger: logger) }
        return devices
    }

    /// The platform's devices.
    private static func platformBackend(_ configuration: SRTCEngine.Configuration, logger: Logger) -> DeviceBackend {
        #if os(Linux)
        LinuxDeviceBackend(audioServer: configuration.audioServer, logger: logger)
        #elseif canImport(AVFoundation) && (os(iOS) || os(macOS))
        AppleDeviceBackend()
        #else
        NoDeviceBackend()
        #endif
    }
}

#if os(Linux) || (canImport(AVFoundation) && (os(iOS) || os(macOS)))
/// The preview stops the capture of a camera it opened (`startLocalPreview(frontCamera:view:preset:)`).
extension LocalCameraTrack: PreviewCapture {}
#endif
