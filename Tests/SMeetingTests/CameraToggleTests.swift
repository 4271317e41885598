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
