#if canImport(AVFoundation) && (os(iOS) || os(macOS))
import SRTCCore
import AVFoundation
#if os(macOS)
import CoreAudio
#endif

/// Points the microphone capture at the device the app chose (`DeviceSelection` picked it from
/// `getDevices(kind: .audioInput)`). iOS: the audio session's preferred input (its port `uid` is
/// the `deviceId` listed); macOS: the input node's CoreAudio device (the `uniqueID` listed is the
/// device's UID).
enum MicrophoneRoute {
    static func select(_ device: MediaDevice, engine: AVAudioEngine) throws(SRTCError) {
        #if os(iOS)
        let session = AVAudioSession.sharedInstance()
        guard let port = session.availableInputs?.first(where: { $0.uid == device.deviceId }) else {
            throw .notFound("microphone \(device.deviceId)")
        }
        do {
            try session.setPreferredInput(port)
        } catch {
            throw .systemError("microphone \(device.deviceId): \(error)")
        }
        #else
        var id = AudioDeviceID(0)
        var uid = device.deviceId as CFString
        var address = AudioObjectPropertyAddress(mSelector: kAudioHardwarePropertyTranslateUIDToDevice,
                                                 mScope: kAudioObjectPropertyScopeGlobal,
                                                 mElement: kAudioObjectPropertyElementMain)
        var size = UInt32(MemoryLayout<AudioDeviceID>.size)
        let status = withUnsafeMutablePointer(to: &uid) { qualifier in
            AudioObjectGetPropertyData(AudioObjectID(kAudioObjectSystemObject), &address,
                                       UInt32(MemoryLayout<CFString>.size), qualifier, &size, &id)
        }
        guard status == noErr, id != AudioDeviceID(kAudioObjectUnknown) else { throw .notFound("microphone \(device.deviceId)") }
        do {
            try engine.inputNode.auAudioUnit.setDeviceID(id)
        } catch {
            throw .systemError("microphone \(device.deviceId): \(error)")
        }
        #endif
    }
}
#endif
