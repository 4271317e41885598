#if os(Linux)
import SRTCCore
import Foundation
import RTCMedia
import Synchronization

// The device tracks on Linux: the microphone (PulseAudio), the camera (V4L2) and the screen (X11).
// Each is a local track whose capture thread pushes into the same pipeline a custom track uses.

/// The microphone as a local audio track: a PulseAudio source (the server's default, or the
/// `deviceId` from `getDevices(kind: .audioInput)`), captured at 48 kHz mono in 20 ms buffers.
// @unchecked Sendable: restates LocalAudioTrack's conformance; its own state, the capture thread, is in a Mutex.
public final class LocalMicrophoneTrack: LocalAudioTrack, @unchecked Sendable {
    private let capture = Mutex<(thread: DeviceThread, deviceId: String?)?>(nil)

    /// Starts capturing; a running capture moves to the new source.
    /// - Throws: `.notFound` for an unknown source, `.systemError` when no sound server answers.
    public func startCapture(deviceId: String? = nil) async throws(SRTCError) {
        let server = context.configuration.audioServer, logger = context.logger
        let thread = try await DeviceThread.perform { () throws(SRTCError) in
            try PulseAudioCapture.start(server: server, source: deviceId, logger: logger) { [weak self] in self?.deliver($0) }
        }
        let old = capture.withLock { c in defer { c = (thread, deviceId) }; return c }
        old?.thread.stop()
    }

    /// Stops capturing.
    public func stopCapture() {
        capture.withLock { c in defer { c = nil }; return c }?.thread.stop()
    }

    /// The source being captured (nil: the default, or not capturing).
    public var deviceId: String? { capture.withLock { $0?.deviceId } }
}

/// A camera as a local video track: a V4L2 device (the first camera, or the `deviceId` from
/// `getDevices(kind: .videoInput)`) asked for the preset's size and rate. YUYV, MJPEG, NV12 and
/// I420 cameras are read; frames go through the render module and `videoProcessors`.
// @unchecked Sendable: restates LocalVideoTrack's conformance; its own state (capture thread, exposure base) is in Mutexes.
public final class LocalCameraTrack: LocalVideoTrack, @unchecked Sendable {
    private let capture = Mutex<(thread: DeviceThread, deviceId: String)?>(nil)
    /// The exposure time a bias of 0 stands for, on which camera, while the app has the exposure
    /// fixed (`setCameraExposureRatio`).
    let exposureBase = Mutex<(deviceId: String, value: Int64)?>(nil)

    /// Starts the camera; a running capture moves to the new one.
    /// - Throws: `.notFound` when there is no such camera (or none at all), `.systemError` when
    ///   it cannot be opened or streamed.
    public func startCapture(deviceId: String? = nil) async throws(SRTCError) {
        guard let id = deviceId ?? V4L2DeviceList.cameras(in: "/dev").first?.deviceId else { throw .notFound("no camera") }
        let preset = self.preset, logger = context.logger
        let thread = try await DeviceThread.perform { () throws(SRTCError) in
            let camera = try V4L2Camera(path: id, preset: preset)
            let box = UncheckedBox(camera)
            return DeviceThread(name: "srtc.v4l2.capture") { [weak self] thread in
                Self.loop(box.value, thread: thread, logger: logger) { self?.deliver($0) }
            }
        }
        let old = capture.withLock { c in defer { c = (thread, id) }; return c }
        old?.thread.stop()
    }

    /// Switches to another camera (nil: the next one in `getDevices(kind: .videoInput)`). The
    /// switch happens only once the target streams; if it cannot, the current camera stays.
    /// - Throws: `.wrongState` when the camera is not on, or the target's error.
    public func switchCamera(deviceId: String? = nil) async throws(SRTCError) {
        guard let current = self.deviceId else { throw .wrongState("the camera is not capturing") }
        let cameras = V4L2DeviceList.cameras(in: "/dev").map(\.deviceId)
        let next = cameras.firstIndex(of: current).map { cameras[($0 + 1) % cameras.count] } ?? cameras.first
        guard let target = deviceId ?? next, target != current else { return }
        try await startCapture(deviceId: target)
    }

    /// Stops the camera.
    public func stopCapture() {
        capture.withLock { c in defer { c = nil }; return c }?.thread.stop()
    }

    /// The camera being captured, or nil.
    public var deviceId: String? { capture.withLock { $0?.deviceId } }

    /// Feeds the track with frames the app makes while no device is captured (a machine without
    /// a camera: a bot's generated picture, SMeeting's `pushCameraFrame`), as a custom track is fed.
    /// - Returns: false while a device is captured, or when a processor dropped the frame.
    @discardableResult
    public func pushFrame(_ frame: VideoFrame) -> Bool {
        guard deviceId == nil else { return false }
        return deliver(frame) != nil
    }

    private static func loop(_ camera: V4L2Camera, thread: DeviceThread, logger: Logger, deliver: (VideoFrame) -> Void) {
        let converter = CameraFrameConverter()
        let start = DispatchTime.now().uptimeNanoseconds
        while thread.isRunning {
            var picture: VideoPixelBuffer?
            do {
                _ = try camera.nextFrame(timeoutMs: 200) { bytes in
                    picture = try? converter.convert(bytes, format: camera.format, width: camera.width, height: camera.height,
                                                     stride: camera.stride)
                }
            } catch {
                logger.warning("camera capture ended: \(error)")
                return
            }
            if let picture {
                deliver(VideoFrame(buffer: picture, timestampUs: Int64((DispatchTime.now().uptimeNanoseconds - start) / 1_000)))
            }
        }
    }
}

/// The screen of an X11 display as a local video track (`screen`, one stream): the whole screen,
/// scaled down to fit the preset, at the preset's frame rate.
// @unchecked Sendable: restates LocalVideoTrack's conformance; its own state, the capture thread, is in a Mutex.
public final class LocalScreenTrack: LocalVideoTrack, @unchecked Sendable {
    private let capture = Mutex<DeviceThread?>(nil)

    /// Starts capturing `display` (`:0`; nil uses $DISPLAY); a running capture is replaced.
    /// - Throws: `.systemError` when the display cannot be opened.
    public func startCapture(display: String? = nil) async throws(SRTCError) {
        try await startCapture(display: display, target: .screen(nil, excluding: []))
    }

    func startCapture(display: String?, target: X11ScreenCapture.Target) async throws(SRTCError) {
        let preset = self.preset, logger = context.logger
        let thread = try await DeviceThread.perform { () throws(SRTCError) in
            try X11ScreenCapture.start(display: display, target: target, preset: preset, logger: logger) { [weak self] in self?.deliver($0) }
        }
        capture.withLock { c in defer { c = thread }; return c }?.stop()
    }

    /// Stops capturing.
    public func stopCapture() {
        capture.withLock { c in defer { c = nil }; return c }?.stop()
    }
}

extension SRTCEngine {
    /// The screen of an X11 display as a local video track (`screen`, no simulcast). Call
    /// `startCapture(display:)`.
    public func createLocalScreenTrack(preset: ScreenPreset = .h1080p) -> LocalScreenTrack {
        LocalScreenTrack(desc: TrackDesc.screen, preset: preset, simulcast: false, context: context)
    }
}
#endif
