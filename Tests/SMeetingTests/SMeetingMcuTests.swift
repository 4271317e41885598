import EgressServer
import Foundation
import MeetingServer
import SMeeting
import SMeetingProtocol
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// The server-side composite in a `.mix` meeting, played with `startPlayRemoteVideoMcu`.
@Suite(.serialized) struct SMeetingMcuTests {
    @Test func aMixMeetingShowsItsCompositeAndANormalOneHasNone() async throws {
        let server = try TestServer(modules: [MeetingModule.factory, EgressModule.factory])
        let host = try await TestMember(server: server, uid: "host")
        let viewer = try await TestMember(server: server, uid: "viewer")
        let view = MeetingMediaCollector()
        await #expect(throws: SMeetingError.notInMeeting) { try await viewer.engine.startPlayRemoteVideoMcu(view: view, uid: "mcu") }

        let mix = try await host.engine.createRoom(MeetingCreateReq(title: "All hands", mode: .mix))
        try await host.engine.enterRoom(MeetingEnterReq(meetingId: mix.meetingId))
        try await host.engine.requestOpenCamera()
        let pusher = try MeetingMediaPusher(engine: host.engine, width: 320, height: 180, fps: 15)
        defer { pusher.stop() }
        try await viewer.engine.enterRoom(MeetingEnterReq(meetingId: mix.meetingId))

        // The composite (uid mcu, published by the server) shows the host's camera, full frame.
        let track = try await viewer.engine.startPlayRemoteVideoMcu(view: view, uid: SMeetingEngine.mixCompositeUid)
        #expect(track.uid == "mcu" && track.isSubscribed)
        try await eventually(timeout: 20, "the host's frames in the composite (\(view.numbers.count))") { view.numbers.count >= 10 }
        let numbers = view.numbers
        #expect(numbers.last! > numbers.first!, "advancing: \(numbers.prefix(3))…\(numbers.suffix(3))")
        #expect(view.sizes == ["1280x720"])
        // Not a member, not a channel user.
        #expect(!viewer.engine.getUsersInfoList().contains { $0.uid == "mcu" })
        #expect(viewer.engine.srtc.getChannels().first?.users.contains { $0.uid == "mcu" } == false)
        // A member's camera is not a composite.
        await #expect(throws: SMeetingError.self) { try await viewer.engine.startPlayRemoteVideoMcu(view: MeetingMediaCollector(), uid: "host") }

        await viewer.engine.stopPlayRemoteVideoMcu(view: view)
        #expect(!track.isSubscribed)
        await viewer.engine.exitRoom()

        // A normal meeting has no composite: internalError, at once.
        let normal = try await host.engine.createRoom(MeetingCreateReq(title: "Standup"))
        try await viewer.engine.enterRoom(MeetingEnterReq(meetingId: normal.meetingId))
        await #expect(throws: SMeetingError.internalError("no composite video under uid mcu")) {
            try await viewer.engine.startPlayRemoteVideoMcu(view: view, uid: "mcu")
        }
        await viewer.engine.exitRoom()
        await host.engine.exitRoom()
        await server.stop()
    }
}
