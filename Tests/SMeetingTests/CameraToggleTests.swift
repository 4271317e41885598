@testable import SMeeting
import Dispatch
import SRTC
import Synchronization
import Testing

/// `switchCamera()` without a deviceId on iOS and macOS (seed 001; issue 28 item 4): the camera
/// facing the other way is opened while the current one runs, and the side is remembered only
/// once it opened, so a failed toggle leaves the camera on and aims at the same side next time.
/// `toggleCameraFacing` is the platform-neutral rule the Apple layer runs with
/// `LocalCameraTrack.startCapture(facing:)`.
@Suite struct CameraToggleTests {
    @Test func aFailedToggleKeepsTheCurrentSideAndTheNextAimsAtTheSameSide() async throws {
        let meeting = SMeetingEngine(url: "http://127.0.0.1:9", independent: .init(delegateQueue: DispatchQueue(label: "toggle"), logLevel: .off))
        let opened = Mutex<[CameraDirection]>([])
        #expect(meeting.cameraFacing == .front)

        await #expect(throws: SRTCError.notFound("no back camera")) {
            try await meeting.toggleCameraFacing { (direction: CameraDirection) async throws(SRTCError) in
                throw .notFound("no \(direction.rawValue) camera")
            }
        }
        #expect(meeting.cameraFacing == .front, "the failed target is not taken as the current side")

        for _ in 0..<3 {
            try await meeting.toggleCameraFacing { (direction: CameraDirection) async throws(SRTCError) in
                opened.withLock { $0.append(direction) }
            }
        }
        #expect(opened.withLock { $0 } == [.back, .front, .back])
        #expect(meeting.cameraFacing == .back)
        await meeting.srtc.destroy()
    }
}

/// `requestOpenCamera` on iOS and macOS (seed 001): without a `deviceId`, the camera facing the
/// side last toggled to (front at first), else the system's default; `openCamera` is the
/// platform-neutral rule the Apple layer runs.
@Suite struct CameraOpenTests {
    typealias Attempt = SMeetingEngine.CameraOpenAttempt

    /// Runs the rule with cameras that answer as `answers` says (absent: opens).
    static func attempts(_ meeting: SMeetingEngine, deviceId: String?, answers: [Attempt: SRTCError] = [:])
        async -> (tried: [Attempt], error: SRTCError?) {
        let tried = Mutex<[Attempt]>([])
        do {
            try await meeting.openCamera(deviceId: deviceId) { (attempt: Attempt) async throws(SRTCError) in
                tried.withLock { $0.append(attempt) }
                if let error = answers[attempt] { throw error }
            }
            return (tried.withLock { $0 }, nil)
        } catch {
            return (tried.withLock { $0 }, error)
        }
    }

    @Test func theSideLastToggledToComesFirstThenTheSystemsDefault() async throws {
        let meeting = SMeetingEngine(url: "http://127.0.0.1:9", independent: .init(delegateQueue: DispatchQueue(label: "open"), logLevel: .off))
        let first = await Self.attempts(meeting, deviceId: nil)
        #expect(first.tried == [.facing(.front)] && first.error == nil)
        // A Mac with an external camera only: no front camera, the default one opens.
        let external = await Self.attempts(meeting, deviceId: nil, answers: [.facing(.front): .notFound("no front camera")])
        #expect(external.tried == [.facing(.front), .systemDefault] && external.error == nil)
        // Access denied is not "try another camera".
        let denied = await Self.attempts(meeting, deviceId: nil, answers: [.facing(.front): .mediaFailed("camera access denied")])
        #expect(denied.tried == [.facing(.front)] && denied.error == .mediaFailed("camera access denied"))
        // No camera at all: the last attempt's error.
        let none = await Self.attempts(meeting, deviceId: nil, answers: [.facing(.front): .notFound("no front camera"), .systemDefault: .notFound("no camera")])
        #expect(none.error == .notFound("no camera"))
        // A named camera only; after a toggle to the back, the back one first.
        #expect(await Self.attempts(meeting, deviceId: "cam-2").tried == [.device("cam-2")])
        try await meeting.toggleCameraFacing { (_: CameraDirection) async throws(SRTCError) in }
        #expect(await Self.attempts(meeting, deviceId: nil).tried == [.facing(.back)])
        await meeting.srtc.destroy()
    }
}
