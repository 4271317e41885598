#if canImport(AVFoundation) && (os(iOS) || os(macOS))
import SRTCCore
import AVFoundation
import CoreVideo
import Synchronization

/// The device camera as a local video track (Apple platforms). `startCapture()` opens the camera;
/// frames then go through `videoProcessors` and to every channel the track is published in.
// @unchecked Sendable: restates LocalVideoTrack's conformance; its own state, the running capture, is in a Mutex.
public final class LocalCameraTrack: LocalVideoTrack, @unchecked Sendable {
    private let capture = Mutex<CameraCapture?>(nil)

    /// Starts the camera (asks for permission the first time).
    /// - Parameter position: `.front` by default.
    public func startCapture(position: AVCaptureDevice.Position = .front) async throws(SRTCError) {
        guard let device = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: position)
                ?? AVCaptureDevice.default(for: .video) else { throw .notFound("no camera") }
        try await startCapture(device: device)
    }

    /// Starts the camera `deviceId` (an `AVCaptureDevice.uniqueID` from `getDevices(kind: .videoInput)`;
    /// nil: the default camera). A running capture moves to it.
    /// - Throws: `.notFound` for an unknown camera, `.mediaFailed` when access is denied.
    public func startCapture(deviceId: String?) async throws(SRTCError) {
        guard let device = deviceId.flatMap(AVCaptureDevice.init(uniqueID:)) ?? AVCaptureDevice.default(for: .video) else {
            throw .notFound("camera \(deviceId ?? "default")")
        }
        try await startCapture(device: device)
    }

    /// Switches to another camera (nil: the next one); the current one stays if the target fails.
    public func switchCamera(deviceId: String? = nil) async throws(SRTCError) {
        guard let current = self.deviceId else { throw .wrongState("the camera is not capturing") }
        let all = AppleDeviceBackend.cameras().map(\.uniqueID)
        let next = all.firstIndex(of: current).map { all[($0 + 1) % all.count] } ?? all.first
        guard let target = deviceId ?? next, target != current else { return }
        try await startCapture(deviceId: target)
    }

    /// The camera being captured, or nil.
    public var deviceId: String? { capture.withLock { $0?.deviceId } }

    /// Feeds the track with frames the app makes while no device is captured, as a custom track
    /// is fed. - Returns: false while the camera captures, or when a processor dropped the frame.
    @discardableResult
    public func pushFrame(_ frame: VideoFrame) -> Bool {
        guard deviceId == nil else { return false }
        return deliver(frame) != nil
    }

    private func startCapture(device: AVCaptureDevice) async throws(SRTCError) {
        guard await AVCaptureDevice.requestAccess(for: .video) else { throw .mediaFailed("camera access denied") }
        let camera = CameraCapture(preset: preset) { [weak self] pixelBuffer, timeUs in
            guard let self, let pixels = PixelBufferBridge.videoPixelBuffer(from: pixelBuffer) else { return }
            self.deliver(VideoFrame(buffer: pixels, timestampUs: timeUs))
        }
        try camera.start(device: device)
        capture.withLock { c in defer { c = camera }; return c }?.stop()
    }

    /// Stops the camera.
    public func stopCapture() {
        capture.withLock { c in
            c?.stop()
            c = nil
        }
    }
}

/// An `AVCaptureSession` delivering pixel buffers on its own queue.
// @unchecked Sendable: `deviceId` is set by start() before the capture is stored in its track's Mutex and read through it; frames arrive only on `queue`.
final class CameraCapture: NSObject, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    private let session = AVCaptureSession()
    private let queue = DispatchQueue(label: "srtc.camera")
    private let preset: VideoPreset
    private let onFrame: (CVPixelBuffer, Int64) -> Void

    init(preset: VideoPreset, onFrame: @escaping (CVPixelBuffer, Int64) -> Void) {
        self.preset = preset
        self.onFrame = onFrame
    }

    private(set) var deviceId: String?

    func start(device: AVCaptureDevice) throws(SRTCError) {
        guard let input = try? AVCaptureDeviceInput(device: device), session.canAddInput(input) else {
            throw .mediaFailed("camera \(device.localizedName) cannot be used")
        }
        deviceId = device.uniqueID
        session.beginConfiguration()
        session.sessionPreset = preset.height >= 1080 ? .hd1920x1080 : preset.height >= 720 ? .hd1280x720 : .vga640x480
        session.addInput(input)
        let output = AVCaptureVideoDataOutput()
        output.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarFullRange]
        output.alwaysDiscardsLateVideoFrames = true
        output.setSampleBufferDelegate(self, queue: queue)
        guard session.canAddOutput(output) else { throw .mediaFailed("camera output refused") }
        session.addOutput(output)
        session.commitConfiguration()
        session.startRunning()
    }

    func stop() {
        session.stopRunning()
    }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        guard let pixelBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else { return }
        let time = CMSampleBufferGetPresentationTimeStamp(sampleBuffer)
        onFrame(pixelBuffer, Int64(CMTimeGetSeconds(time) * 1_000_000))
    }
}

/// The device microphone as a local audio track (Apple platforms), through `AVAudioEngine`.
// @unchecked Sendable: restates LocalAudioTrack's conformance; its AVAudioEngine is used only by startCapture/stopCapture, which assumes the app calls them one at a time.
public final class LocalMicrophoneTrack: LocalAudioTrack, @unchecked Sendable {
    private let engine = AVAudioEngine()

    /// Starts the microphone (asks for permission the first time).
    /// - Parameter deviceId: a microphone from `getDevices(kind: .audioInput)` (iOS: the audio
    ///   session's preferred input; macOS: the input device); nil leaves the system's choice.
    /// - Throws: `.notFound` for a microphone the system does not list, `.mediaFailed` when
    ///   access is denied.
    public func startCapture(deviceId: String? = nil) async throws(SRTCError) {
        guard await AVCaptureDevice.requestAccess(for: .audio) else { throw .mediaFailed("microphone access denied") }
        if let device = try DeviceSelection.pick(deviceId, among: AppleDeviceBackend().devices(.audioInput)) {
            try MicrophoneRoute.select(device, engine: engine)
        }
        let input = engine.inputNode
        let format = input.outputFormat(forBus: 0)
        input.installTap(onBus: 0, bufferSize: AVAudioFrameCount(format.sampleRate / 50), format: format) { [weak self] buffer, _ in
            guard let self, let pcm = AudioBufferBridge.pcm(from: buffer) else { return }
            self.deliver(pcm)
        }
        do {
            try engine.start()
        } catch {
            throw .mediaFailed("microphone: \(error)")
        }
    }

    /// Stops the microphone.
    public func stopCapture() {
        engine.inputNode.removeTap(onBus: 0)
        engine.stop()
    }
}

#endif
