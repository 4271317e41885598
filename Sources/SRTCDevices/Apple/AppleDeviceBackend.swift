#if canImport(AVFoundation) && (os(iOS) || os(macOS))
import SRTCCore
import AVFoundation
import Synchronization

/// Devices on Apple platforms: cameras and microphones from AVFoundation's discovery sessions,
/// hot-plug from `AVCaptureDevice.wasConnected` / `wasDisconnected`, the speaker through
/// `AVAudioEngine`. Outputs are listed on iOS (the audio session's current route); on macOS the
/// system output is used and not listed.
struct AppleDeviceBackend: DeviceBackend {
    static func cameras() -> [AVCaptureDevice] {
        AVCaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera, .external], mediaType: .video,
                                         position: .unspecified).devices
    }

    func devices(_ kind: MediaDeviceKind) -> [MediaDevice] {
        switch kind {
        case .videoInput:
            let preferred = AVCaptureDevice.default(for: .video)?.uniqueID
            return Self.cameras().map { MediaDevice(deviceId: $0.uniqueID, kind: kind, label: $0.localizedName, isDefault: $0.uniqueID == preferred) }
        case .audioInput:
            #if os(iOS)
            // The audio session's inputs: their `uid` is what `setPreferredInput` takes.
            let session = AVAudioSession.sharedInstance()
            let current = session.currentRoute.inputs.first?.uid
            return (session.availableInputs ?? []).map {
                MediaDevice(deviceId: $0.uid, kind: kind, label: $0.portName, isDefault: $0.uid == current)
            }
            #else
            let preferred = AVCaptureDevice.default(for: .audio)?.uniqueID
            return AVCaptureDevice.DiscoverySession(deviceTypes: [.microphone, .external], mediaType: .audio, position: .unspecified)
                .devices.map { MediaDevice(deviceId: $0.uniqueID, kind: kind, label: $0.localizedName, isDefault: $0.uniqueID == preferred) }
            #endif
        case .audioOutput:
            #if os(iOS)
            return AVAudioSession.sharedInstance().currentRoute.outputs.map {
                MediaDevice(deviceId: $0.uid, kind: kind, label: $0.portName, isDefault: true)
            }
            #else
            return []
            #endif
        }
    }

    func watch(_ changed: @escaping @Sendable () -> Void) -> DeviceWatch {
        let center = NotificationCenter.default
        let observers = [AVCaptureDevice.wasConnectedNotification, AVCaptureDevice.wasDisconnectedNotification].map {
            center.addObserver(forName: $0, object: nil, queue: nil) { _ in changed() }
        }
        return NotificationWatch(observers: UncheckedObservers(list: observers))
    }

    func openAudioOutput(deviceId: String?, mixer: RemoteAudioMixer) throws(SRTCError) -> DeviceWatch {
        try AppleAudioOutput(mixer: mixer)
    }
}

// @unchecked Sendable: the observer tokens are made once and only handed to `removeObserver`, which NotificationCenter allows from any thread.
private struct UncheckedObservers: @unchecked Sendable {
    let list: [NSObjectProtocol]
}

private struct NotificationWatch: DeviceWatch {
    let observers: UncheckedObservers

    func stop() {
        for observer in observers.list { NotificationCenter.default.removeObserver(observer) }
    }
}

/// The speaker on Apple platforms: an `AVAudioSourceNode` whose render block pulls the mixed
/// remote audio (mono, 48 kHz float) into `AVAudioEngine`'s main mixer.
// @unchecked Sendable: its AVAudioEngine is started in init and only stopped after; the render block touches only the Sendable mixer.
private final class AppleAudioOutput: DeviceWatch, @unchecked Sendable {
    private let engine = AVAudioEngine()

    init(mixer: RemoteAudioMixer) throws(SRTCError) {
        guard let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: Double(RemoteAudioMixer.sampleRate),
                                         channels: 1, interleaved: false) else { throw .systemError("no audio format") }
        let source = AVAudioSourceNode(format: format) { _, _, frameCount, bufferList -> OSStatus in
            let buffers = UnsafeMutableAudioBufferListPointer(bufferList)
            guard let data = buffers.first?.mData?.assumingMemoryBound(to: Float.self) else { return noErr }
            mixer.pull(into: UnsafeMutableBufferPointer(start: data, count: Int(frameCount)))
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: format)
        do {
            try engine.start()
        } catch {
            throw .systemError("audio output: \(error)")
        }
    }

    func stop() {
        engine.stop()
    }
}
#endif
