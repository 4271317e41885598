import Foundation
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// Issue 28 item 5, decided with seed 001 (docs/sdk-smeeting.md, "View capture asks the meeting,
/// deliberately"): view capture sets no sharing state, but the meeting still allows the `screen`
/// track, so a host's "sharing disabled" and one screen per meeting hold. A refusal comes before
/// anything is published.
@Suite struct SMeetingViewCaptureRuleTests {
    @Test func viewCaptureIsRefusedBeforePublishingWhereTheMeetingForbidsIt() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        let carol = try await TestMember(server: server, uid: "carol")
        let meeting = try await host.host(MeetingCreateReq(title: "views"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        try await carol.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))

        // Sharing disabled for members: refused, nothing published, no view_capture state.
        _ = try await host.engine.adminDisableShare(true)
        try await eventually("bob knows sharing is disabled") { bob.engine.getRoomInfo()?.shareDisabled == true }
        await #expect(throws: SMeetingError.unauthorized) { _ = try await bob.engine.startViewCaptureShare() }
        #expect(bob.engine.viewCaptureTrack == nil && bob.channel?.localTracks.isEmpty == true)
        _ = try await host.engine.adminDisableShare(false)

        // Another member shares the screen: one screen per meeting.
        try await carol.engine.requestShare(shareType: .screen)
        await #expect(throws: SMeetingError.self) { _ = try await bob.engine.startViewCaptureShare() }
        do {
            _ = try await bob.engine.startViewCaptureShare()
        } catch SMeetingError.apiError(let code, _) {
            #expect(code == 40904)
        }
        #expect(bob.engine.viewCaptureTrack == nil && bob.channel?.localTracks.isEmpty == true)

        // The screen free again: allowed, with no sharing state (nobody is told a share started).
        await carol.engine.stopShare()
        let track = try await bob.engine.startViewCaptureShare()
        try await eventually("the host sees bob's screen track") { host.channel?.remoteTrack(uid: "bob", desc: "screen") != nil }
        #expect(track.desc == "screen" && host.engine.getRoomInfo()?.sharingUid == nil)
        #expect(!host.events.lines.contains("share+ bob 1"))
        await bob.engine.stopViewCaptureShare()
        await server.stop()
    }
}
