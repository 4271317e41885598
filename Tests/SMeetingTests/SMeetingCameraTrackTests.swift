import Foundation
import RTCMedia
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// Seed 001: `requestOpenCamera` returns the `LocalCameraTrack` (also `meeting.cameraTrack`). On
/// a machine without a camera it captures nothing and the app feeds it; what it is fed is what
/// the others decode.
@Suite struct SMeetingCameraTrackTests {
    static let preset = CameraPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 400_000)

    @Test func theCameraTrackIsReturnedAndCarriesWhatTheAppFeedsIt() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        guard host.engine.getDevices(kind: .videoInput).isEmpty else { return }  // a developer's machine with a camera
        let meeting = try await host.host(MeetingCreateReq(title: "camera"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))

        let camera: LocalCameraTrack = try await host.engine.requestOpenCamera(preset: Self.preset)
        #expect(camera === host.engine.cameraTrack && camera.deviceId == nil && camera.desc == "camera_big")
        #expect(try await host.engine.requestOpenCamera() === camera, "calling again returns the same track")
        let pusher = try MeetingMediaPusher(engine: host.engine, width: Self.preset.width, height: Self.preset.height)
        defer { pusher.stop() }
        let seen = MeetingMediaCollector()
        _ = try await bob.engine.startPlayRemoteVideo(view: seen, uid: "host", trackDesc: .cameraBig)
        try await eventually("bob decodes the frames fed to the camera track") { seen.numbers.count > 20 }
        let numbers = seen.numbers
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "\(numbers)")
        await host.engine.closeCamera()
        let frame = VideoFrame(buffer: try VideoPixelBuffer(format: .i420, width: 16, height: 16), timestampUs: 0)
        #expect(host.engine.cameraTrack == nil && !host.engine.pushCameraFrame(frame))
        await server.stop()
    }
}
