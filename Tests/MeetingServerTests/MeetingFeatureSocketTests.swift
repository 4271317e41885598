import Foundation
import MeetingServer
import SMeetingProtocol
import SRTCProtocol
import SRTCTestSupport
import Testing

/// The waiting room, sub-meetings and sign-in at the protocol level and through the signed
/// server API: the rules, the channel admission, and bad input answered with documented codes
/// while nobody else is disturbed.
@Suite struct MeetingFeatureSocketTests {
    @Test func aWaitingMemberHasNoTokenAndTheBackendAdmitsOrRemoves() async throws {
        let server = try makeMeetingServer()
        let (m, s) = try await hostedMeeting(["host", "bob", "eve"], MeetingCreateReq(title: "w", waitingRoom: true), on: server)
        let (host, bob, eve) = (s[0], s[1], s[2])
        let waitingAnswer = try bob.data(EnterRoomResp.self, try await bob.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).text)
        #expect(waitingAnswer.waiting && waitingAnswer.rtc == nil && waitingAnswer.users.isEmpty)
        #expect(try host.data(WaitingEnteredEvent.self, try await host.waitEvent(.waitingEntered)).user.uid == "bob")
        // A valid channel token does not get a waiting member into the channel.
        let forged = try await TestSignalClient(url: server.wsURL)
        #expect(try await forged.request(.join(JoinRequest(token: server.token(uid: "bob", channel: "mt_" + m.meetingId)))).errorCode == .permissionDenied)
        // In-meeting requests while waiting: not in the meeting.
        #expect(try await bob.call(.requestOpenMic, OpenReq()).error?.code == 40902)
        let before = (host.events, bob.events)
        #expect(try await host.call(.adminAdmit, TargetReq(uid: "nobody")).error?.code == 40401)
        #expect(try await host.call(.adminRemoveWaiting, TargetReq(uid: "host")).error?.code == 40401)
        #expect(host.events == before.0 && bob.events == before.1, "bad input disturbed nobody")

        // A locked room refuses before the waiting room.
        #expect(try await host.call(.adminLockRoom, PolicyReq(allow: true)).ok)
        #expect(try await eve.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).error?.code == 40312)
        #expect(try await host.call(.adminLockRoom, PolicyReq(allow: false)).ok)
        #expect(try eve.data(EnterRoomResp.self, try await eve.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).text).waiting)

        // The signed API: the list, admit one, remove one.
        let (_, list) = try await server.call("/server/v1/meeting/waiting_list", ["meeting_id": m.meetingId])
        #expect((list["users"] as? [[String: Any]])?.map { $0["uid"] as? String } == ["bob", "eve"])
        let (status, admitted) = try await server.call("/server/v1/meeting/waiting_admit", ["meeting_id": m.meetingId, "uid": "bob"])
        #expect(status == 200 && (admitted["users"] as? [[String: Any]])?.first?["uid"] as? String == "bob")
        let joined = try bob.data(EnterRoomResp.self, try await bob.waitEvent(.waitingAdmitted))
        let rtc = try #require(joined.rtc)
        #expect(!joined.waiting && joined.users.map(\.uid) == ["host", "bob"])
        #expect(try await forged.request(.join(JoinRequest(token: rtc.token))).isSuccess)
        let (s2, _) = try await server.call("/server/v1/meeting/waiting_remove", ["meeting_id": m.meetingId, "uid": "eve"])
        #expect(s2 == 200)
        #expect(try eve.data(ByEvent.self, try await eve.waitEvent(.waitingRemoved)).by == nil)
        let (s3, missing) = try await server.call("/server/v1/meeting/waiting_remove", ["meeting_id": m.meetingId, "uid": "eve"])
        #expect(s3 == 404 && missing["code"] as? Int == 40401)
        let left = try host.data(WaitingLeftEvent.self, try await host.waitEvent(.waitingLeft, count: 2))
        #expect(left.user.uid == "eve" && left.reason == .removed)
        for x in s { x.close() }
        await server.stop()
    }

    @Test func subMeetingsBadInputAndChannelsByPlace() async throws {
        let server = try makeMeetingServer()
        let (m, s) = try await hostedMeeting(["host", "a", "b"], MeetingCreateReq(title: "s"), on: server)
        let (host, a, b) = (s[0], s[1], s[2])
        for x in [a, b] { #expect(try await x.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok) }
        #expect(try await a.call(.adminCreateSubMeetings, CreateSubMeetingsReq(titles: ["x"])).error?.code == 40301)
        #expect(try await host.call(.adminOpenSubMeetings).error?.code == 40901)
        #expect(try await host.call(.adminCreateSubMeetings, CreateSubMeetingsReq(titles: [])).error?.code == 40002)
        #expect(try await host.call(.adminCreateSubMeetings, CreateSubMeetingsReq(titles: ["One", "Two"])).ok)
        try await b.waitEvent(.subMeetingsChanged)
        let seen = b.events
        #expect(try await host.call(.adminAssignSubMeeting, AssignSubMeetingReq(subMeetingId: "S7", uids: ["a"])).error?.code == 40401)
        #expect(try await host.call(.adminAssignSubMeeting, AssignSubMeetingReq(subMeetingId: "S1", uids: ["ghost"])).error?.code == 40401)
        #expect(try await host.call(.adminAssignSubMeeting, AssignSubMeetingReq(subMeetingId: "S1", uids: ["host"])).error?.code == 40002)
        #expect(b.events == seen, "bad input disturbed nobody")
        #expect(try await host.call(.adminCloseSubMeetings, CloseSubMeetingsReq(countdown: 5)).error?.code == 40901)
        #expect(try await host.call(.adminVisitSubMeeting, VisitSubMeetingReq(subMeetingId: "S1")).error?.code == 40901)
        #expect(try await host.call(.adminAssignSubMeeting, AssignSubMeetingReq(subMeetingId: "S1", uids: ["a"])).ok)
        #expect(try await host.call(.adminOpenSubMeetings).ok)
        let moved = try a.data(SubMeetingMovedEvent.self, try await a.waitEvent(.subMeetingMoved))
        #expect(moved.subMeeting?.subMeetingId == "S1" && moved.rtc.channel == "mt_\(m.meetingId).S1")
        #expect(try await host.call(.adminCloseSubMeetings, CloseSubMeetingsReq(countdown: 301)).error?.code == 40002)
        #expect(try await b.call(.requestSubMeetingHelp).error?.code == 40901)

        // The channels admit each member to the place it is in.
        let inSub = try await TestSignalClient(url: server.wsURL)
        #expect(try await inSub.request(.join(JoinRequest(token: moved.rtc.token))).isSuccess)
        let backToMain = try await TestSignalClient(url: server.wsURL)
        #expect(try await backToMain.request(.join(JoinRequest(token: server.token(uid: "a", channel: "mt_" + m.meetingId)))).errorCode == .permissionDenied)
        let bInSub = try await TestSignalClient(url: server.wsURL)
        #expect(try await bInSub.request(.join(JoinRequest(token: server.token(uid: "b", channel: moved.rtc.channel)))).errorCode == .permissionDenied)

        // Chat stays in its place: b in the main meeting does not hear a in S1.
        #expect(try await a.call(.sendChat, ChatReq(text: "in S1")).ok)
        #expect(try await host.call(.sendChat, ChatReq(text: "in main")).ok)
        try await b.waitEvent(.chat)
        #expect(try b.data(ChatEvent.self, try await b.waitEvent(.chat)).message.text == "in main")
        #expect(try await a.call(.sendChat, ChatReq(text: "to me", to: "a")).error?.code == 40002)
        #expect(try await a.call(.sendChat, ChatReq(text: "to nobody", to: "ghost")).error?.code == 40401)
        #expect(try await host.call(.adminCloseSubMeetings, CloseSubMeetingsReq(countdown: 0)).ok)
        let back = try a.data(SubMeetingMovedEvent.self, try await a.waitEvent(.subMeetingMoved, count: 2))
        #expect(back.subMeeting == nil && back.rtc.channel == "mt_" + m.meetingId)
        try await a.waitEvent(.subMeetingsClosed)
        for x in s { x.close() }
        await server.stop()
    }

    @Test func signInAfterTheDeadlineAndRollCallOfANonMemberAreRefused() async throws {
        let server = try makeMeetingServer()
        let (m, s) = try await hostedMeeting(["host", "bob"], MeetingCreateReq(title: "si"), on: server)
        let (host, bob) = (s[0], s[1])
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        #expect(try await host.call(.adminStartSignIn, StartSignInReq(duration: 4)).error?.code == 40002)
        #expect(try await bob.call(.adminStartSignIn, StartSignInReq(duration: 60)).error?.code == 40301)
        #expect(try await host.call(.adminRollCall, RollCallReq(uid: "ghost")).error?.code == 40401)
        #expect(try await bob.call(.signIn, SignInReq(signInId: "SInope")).error?.code == 40401)

        // A roll call nobody answers in its 5 s: ended, stored unanswered; a late answer is refused.
        let call = try host.data(SignInInfo.self, try await host.call(.adminRollCall, RollCallReq(uid: "bob", timeout: 5)).text)
        #expect(call.deadline - call.startedAt == 5000 && call.targetUid == "bob")
        #expect(try bob.data(SignInStartedEvent.self, try await bob.waitEvent(.rollCall)).signIn == call)
        let result = try host.data(SignInEndedEvent.self, try await host.waitEvent(.rollCallResult, timeout: 10))
        #expect(result.result.records.map(\.signedAt) == [nil] && result.result.endedAt != nil)
        let seen = host.events
        #expect(try await bob.call(.answerRollCall, SignInReq(signInId: call.signInId)).error?.code == 40905)
        #expect(try await host.call(.ping).ok && host.events == seen, "a late answer disturbed nobody")

        // The signed API reads it back after the meeting.
        #expect(try await host.call(.adminEndRoom).ok)
        let (status, stored) = try await server.call("/server/v1/meeting/sign_ins", ["meeting_id": m.meetingId])
        let results = try #require(stored["results"] as? [[String: Any]])
        #expect(status == 200 && results.count == 1)
        #expect(((results.first?["sign_in"] as? [String: Any])?["kind"] as? String) == "roll_call")
        #expect((results.first?["records"] as? [[String: Any]])?.first?["uid"] as? String == "bob")
        for x in s { x.close() }
        await server.stop()
    }

    @Test func whereTheDocsAndTheServerDisagreedTheyNowAgree() async throws {
        let server = try makeMeetingServer()
        let s = try await MeetingTestSocket(url: server.meetingURL)
        #expect(try await s.call(.ping).error?.code == 40901)   // before login
        try await s.login(server.memberToken(uid: "ann"))
        #expect(try await s.call(.ping).ok)
        // create_room with only a title: the server API's defaults.
        s.send(raw: #"{"id": 50, "type": "create_room", "data": {"title": "defaults"}}"#)
        let created = try s.data(MeetingInfo.self, try await s.response(id: 50).text)
        #expect(created.type == .instant && created.mode == .normal && created.attendType == .open && !created.waitingRoom)
        // Cancelling twice: meeting_closed here, wrong_state through the server API.
        #expect(try await s.call(.cancelRoom, MeetingRef(meetingId: created.meetingId)).ok)
        #expect(try await s.call(.cancelRoom, MeetingRef(meetingId: created.meetingId)).error?.code == 40903)
        let (status, body) = try await server.call("/server/v1/meeting/cancel", ["meeting_id": created.meetingId])
        #expect(status == 409 && body["code"] as? Int == 40901)

        // logout: answered, the member exits, then the socket closes.
        let other = try await MeetingTestSocket(url: server.meetingURL)
        try await other.login(server.memberToken(uid: "bob"))
        let m = try s.data(MeetingInfo.self, try await s.call(.createRoom, MeetingCreateReq(title: "l")).text)
        #expect(try await s.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        #expect(try await other.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        #expect(try await other.call(.logout).ok)
        #expect(await other.socket.closed().code == .normalClosure)
        let exited = try s.data(UserExitedEvent.self, try await s.waitEvent(.userExited))
        #expect(exited.user.uid == "bob" && exited.reason == .exit)
        s.close()
        await server.stop()
    }
}
