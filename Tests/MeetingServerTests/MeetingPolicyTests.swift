import Foundation
import MeetingServer
import SMeetingProtocol
import SRTCProtocol
import SRTCTestSupport
import Testing

/// Co-host rights, camera and sharing policies, backend removal and duplicate entries.
@Suite struct MeetingPolicyTests {
    /// A server, a meeting and members who entered it, in order (the first is the host).
    func meeting(_ uids: [String], _ req: MeetingCreateReq = MeetingCreateReq(title: "p")) async throws
        -> (TestServer, MeetingInfo, [MeetingTestSocket]) {
        let server = try makeMeetingServer()
        let (m, sockets) = try await hostedMeeting(uids, req, on: server, everyone: true)
        return (server, m, sockets)
    }

    @Test func coHostsShareMostControlsButNotTheHostOnlyOnes() async throws {
        let (server, _, s) = try await meeting(["host", "co", "mem"])
        let (host, co, mem) = (s[0], s[1], s[2])
        #expect(try await mem.call(.adminSetCoHost, TargetReq(uid: "co", enable: true)).error?.code == 40301)
        let promoted = try await host.call(.adminSetCoHost, TargetReq(uid: "co", enable: true))
        #expect(try host.data(MeetingUserInfo.self, promoted.text).role == .coHost)
        #expect(try await co.call(.adminCameraOffAll, PolicyReq(allow: false)).ok)
        #expect(try await mem.call(.requestOpenCamera, OpenReq()).error?.code == 40311)
        #expect(try await co.call(.requestOpenCamera, OpenReq()).ok)              // admins are not bound
        #expect(try await co.call(.adminKick, TargetReq(uid: "host")).error?.code == 40301)
        #expect(try await co.call(.adminTransferHost, TargetReq(uid: "mem")).error?.code == 40301)
        #expect(try await co.call(.adminEndRoom).error?.code == 40301)
        #expect(try await co.call(.adminSetCoHost, TargetReq(uid: "mem", enable: true)).error?.code == 40301)
        #expect(try await co.call(.adminCameraOnAll).ok)
        #expect(try await mem.call(.requestOpenCamera, OpenReq()).ok)
        #expect(try await co.call(.adminCloseCamera, TargetReq(uid: "mem")).ok)
        let closed = try mem.data(UserChangedEvent.self, try await mem.waitEvent(.userChanged, count: 4))
        #expect(closed.user.uid == "mem" && closed.user.cameraState == .off && closed.by == "co")
        for x in s { x.close() }
        await server.stop()
    }

    @Test func sharingIsOneAtATimeAndCanBeDisabledForMembers() async throws {
        let (server, _, s) = try await meeting(["host", "a", "b"])
        let (host, a, b) = (s[0], s[1], s[2])
        #expect(try await a.call(.requestShare, ShareReq(shareType: .screen)).ok)
        #expect(try await a.call(.requestShare, ShareReq(shareType: .screen)).error?.code == 40901)
        #expect(try await b.call(.requestShare, ShareReq(shareType: .whiteBoard)).error?.code == 40904)
        #expect(try await host.call(.adminDisableShare, PolicyReq(allow: true)).ok)
        // a's sharing was stopped by the host.
        let room = try b.data(RoomChangedEvent.self, try await b.waitEvent(.roomChanged, count: 2))
        #expect(room.room.sharingUid == nil && room.fields == ["sharing"] && room.by == "host")
        #expect(try await b.call(.requestShare, ShareReq(shareType: .whiteBoard)).error?.code == 40311)
        #expect(try await host.call(.requestShare, ShareReq(shareType: .whiteBoard)).ok)
        for x in s { x.close() }
        await server.stop()
    }

    @Test func voiceMeetingsHaveNoCamera() async throws {
        let (server, _, s) = try await meeting(["host"], MeetingCreateReq(title: "v", mode: .voice))
        #expect(try await s[0].call(.requestOpenCamera, OpenReq()).error?.code == 40311)
        #expect(try await s[0].call(.requestOpenMic, OpenReq()).ok)
        s[0].close()
        await server.stop()
    }

    @Test func aMeetingsChannelAdmitsOnlyCurrentMembers() async throws {
        let server = try makeMeetingServer()
        let host = try await MeetingTestSocket(url: server.meetingURL)
        try await host.login(server.memberToken(uid: "host"))
        let bob = try await MeetingTestSocket(url: server.meetingURL)
        try await bob.login(server.memberToken(uid: "bob"))
        let m = try host.data(MeetingInfo.self, try await host.call(.createRoom, MeetingCreateReq(title: "gate")).text)
        _ = try await host.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId))
        let entered = try #require(try bob.data(EnterRoomResp.self, try await bob.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).text).rtc)

        // A member joins the meeting's SRTC channel with the token the meeting gave.
        let first = try await TestSignalClient(url: server.wsURL)
        #expect(try await first.request(.join(JoinRequest(token: entered.token))).isSuccess)
        // A valid channel token for the same channel, but for someone not in the meeting, is refused.
        let outsider = try await TestSignalClient(url: server.wsURL)
        let stranger = server.token(uid: "eve", channel: entered.channel)
        #expect(try await outsider.request(.join(JoinRequest(token: stranger))).errorCode == .permissionDenied)

        // Once kicked, bob's still-valid channel token no longer gets him back in.
        #expect(try await host.call(.adminKick, TargetReq(uid: "bob")).ok)
        let again = try await TestSignalClient(url: server.wsURL)
        #expect(try await again.request(.join(JoinRequest(token: entered.token))).errorCode == .permissionDenied)
        for s in [host, bob] { s.close() }
        await server.stop()
    }

    @Test func theBackendRemovesAMemberAndASecondEntryReplacesTheFirst() async throws {
        let (server, m, s) = try await meeting(["host", "bob"])
        let (status, _) = try await server.call("/server/v1/meeting/kick", ["meeting_id": m.meetingId, "uid": "bob"])
        #expect(status == 200)
        #expect(try s[1].data(ByEvent.self, try await s[1].waitEvent(.kicked)).by == nil)
        let exited = try s[0].data(UserExitedEvent.self, try await s[0].waitEvent(.userExited))
        #expect(exited.user.uid == "bob" && exited.reason == .kicked)
        #expect(try await s[1].call(.closeMic).error?.code == 40902)

        // The host enters again from a second connection: the first is told and dropped.
        let again = try await MeetingTestSocket(url: server.meetingURL)
        try await again.login(server.memberToken(uid: "host"))
        let resp = try again.data(EnterRoomResp.self, try await again.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).text)
        #expect(resp.me.role == .host && resp.users.map(\.uid) == ["host"])
        let gone = try s[0].data(DisconnectedEvent.self, try await s[0].waitEvent(.disconnected))
        #expect(gone.reason == "duplicate_login")
        #expect(try await s[0].call(.closeMic).error?.code == 40902)
        let records = try await server.call("/server/v1/meeting/attendance", ["meeting_id": m.meetingId]).1["records"] as? [[String: Any]]
        #expect(records?.map { $0["exit_reason"] as? String ?? "-" } == ["duplicate_login", "kicked", "-"])
        for x in s + [again] { x.close() }
        await server.stop()
    }
}
