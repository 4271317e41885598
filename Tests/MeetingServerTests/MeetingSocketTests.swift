import Foundation
import MeetingServer
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCTestSupport
import TestRandom
import Testing

/// The meeting WebSocket at the protocol level: login, entry rules, policies, robustness.
@Suite struct MeetingSocketTests {
    @Test func loginComesFirstAndBadTokensAreRefusedWithTheirCodes() async throws {
        let server = try makeMeetingServer()
        let s = try await MeetingTestSocket(url: server.meetingURL)
        #expect(try await s.call(.createRoom, MeetingCreateReq(title: "x")).error?.code == 40901)
        #expect(try await s.call(.login, LoginReq(token: "nope")).error?.code == 40106)
        #expect(try await s.call(.login, LoginReq(token: server.memberToken(uid: "a", key: "wrong"))).error?.code == 40106)
        #expect(try await s.call(.login, LoginReq(token: server.memberToken(uid: "a", lifetime: -10))).error?.code == 40107)
        // A channel token is not a member token.
        #expect(try await s.call(.login, LoginReq(token: server.token(uid: "a", channel: "c"))).error?.code == 40106)
        let ok = try await s.call(.login, LoginReq(token: server.memberToken(uid: "a", nickname: "Ann")))
        let login = try s.data(LoginResp.self, ok.text)
        #expect(ok.ok && login.nickname == "Ann")
        #expect(try await s.call(.login, LoginReq(token: server.memberToken(uid: "a"))).error?.code == 40901)
        #expect(try await s.call(.closeMic).error?.code == 40902)   // not in a meeting
        #expect(try await s.call(.exitRoom).error?.code == 40902)
        s.close()
        await server.stop()
    }

    @Test func entryRulesPasswordInvitationLockAndClosedMeetings() async throws {
        let server = try makeMeetingServer()
        let host = try await MeetingTestSocket(url: server.meetingURL)
        try await host.login(server.memberToken(uid: "host"))
        let pw = try host.data(MeetingInfo.self, try await host.call(.createRoom, MeetingCreateReq(title: "pw", attendType: .password, password: "9876")).text)
        let inv = try host.data(MeetingInfo.self, try await host.call(.createRoom, MeetingCreateReq(title: "inv", attendType: .invitation, conferee: ["bob"])).text)
        let bob = try await MeetingTestSocket(url: server.meetingURL)
        try await bob.login(server.memberToken(uid: "bob"))
        let eve = try await MeetingTestSocket(url: server.meetingURL)
        try await eve.login(server.memberToken(uid: "eve"))
        // The host sees the password; others do not.
        #expect(try host.data(MeetingInfo.self, try await host.call(.detailRoom, MeetingRef(roomNo: pw.roomNo)).text).password == "9876")
        #expect(try bob.data(MeetingInfo.self, try await bob.call(.detailRoom, MeetingRef(roomNo: pw.roomNo)).text).password == nil)

        #expect(try await bob.call(.enterRoom, MeetingEnterReq(roomNo: pw.roomNo)).error?.code == 40313)
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(roomNo: pw.roomNo, password: "0000")).error?.code == 40313)
        #expect(try await eve.call(.enterRoom, MeetingEnterReq(meetingId: inv.meetingId)).error?.code == 40314)
        #expect(try await eve.call(.enterRoom, MeetingEnterReq(roomNo: "000000000")).error?.code == 40002)   // never starts with 0
        #expect(try await eve.call(.enterRoom, MeetingEnterReq(roomNo: "100000000")).error?.code == 40401)
        #expect(try await eve.call(.enterRoom, MeetingEnterReq()).error?.code == 40001)

        let entered = try await host.call(.enterRoom, MeetingEnterReq(roomNo: pw.roomNo))
        let resp = try host.data(EnterRoomResp.self, entered.text)
        #expect(resp.me.role == .host && resp.users.map(\.uid) == ["host"] && resp.room.status == .ongoing)
        let rtc = try #require(resp.rtc)
        #expect(rtc.channel == "mt_" + pw.meetingId && !resp.waiting)
        let claims = try AccessToken.verify(rtc.token, now: Int64(Date().timeIntervalSince1970)) { _ in TestServer.appKey }
        #expect(claims.sub == "host" && claims.grant?.channel == "mt_" + pw.meetingId && claims.iss == TestServer.appId)

        #expect(try await host.call(.adminLockRoom, PolicyReq(allow: true)).ok)
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(roomNo: pw.roomNo, password: "9876")).error?.code == 40312)
        #expect(try await host.call(.adminLockRoom, PolicyReq(allow: false)).ok)
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(roomNo: pw.roomNo, password: "9876")).ok)
        let joined = try host.data(UserEnteredEvent.self, try await host.waitEvent(.userEntered))
        #expect(joined.user.uid == "bob" && joined.user.role == .member && joined.user.micState == .off)
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(roomNo: pw.roomNo, password: "9876")).error?.code == 40901)

        // A member cannot end it; the host can, and then nobody may enter.
        #expect(try await bob.call(.adminEndRoom).error?.code == 40301)
        #expect(try await host.call(.adminEndRoom).ok)
        try await bob.waitEvent(.roomEnded)
        #expect(try await bob.call(.closeMic).error?.code == 40902)
        #expect(try await eve.call(.enterRoom, MeetingEnterReq(roomNo: pw.roomNo, password: "9876")).error?.code == 40903)
        // History: both attended, newest first for bob.
        let history = try bob.data(MeetingPage.self, try await bob.call(.attendedRoom, PageReq(page: 1)).text)
        #expect(history.list.map(\.meetingId) == [pw.meetingId] && history.list.first?.status == .ended)
        for s in [host, bob, eve] { s.close() }
        await server.stop()
    }

    @Test func muteAllPolicyAndAdminInvitationConfirmation() async throws {
        let server = try makeMeetingServer()
        let host = try await MeetingTestSocket(url: server.meetingURL)
        try await host.login(server.memberToken(uid: "host"))
        let m = try host.data(MeetingInfo.self, try await host.call(.createRoom, MeetingCreateReq(title: "m")).text)
        #expect(try await host.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        let bob = try await MeetingTestSocket(url: server.meetingURL)
        try await bob.login(server.memberToken(uid: "bob"))
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        #expect(try await bob.call(.requestOpenMic, OpenReq()).ok)
        #expect(try await bob.call(.adminMuteAll, PolicyReq(allow: false)).error?.code == 40301)
        #expect(try await host.call(.adminMuteAll, PolicyReq(allow: false)).ok)
        let closed = try bob.data(UserChangedEvent.self, try await bob.waitEvent(.userChanged, count: 2))
        #expect(closed.user.uid == "bob" && closed.user.micState == .off && closed.fields == ["mic_state"] && closed.by == "host")
        #expect(try await bob.call(.requestOpenMic, OpenReq()).error?.code == 40311)
        // Confirming a request that was never made is a state error.
        #expect(try await bob.call(.requestOpenMic, OpenReq(byAdmin: true, adminUid: "host")).error?.code == 40901)
        #expect(try await host.call(.adminRequestOpenMic, TargetReq(uid: "bob")).ok)
        let request = try bob.data(AdminRequestEvent.self, try await bob.waitEvent(.adminRequest))
        #expect(request.kind == .mic && request.adminUid == "host")
        let confirmed = try await bob.call(.requestOpenMic, OpenReq(byAdmin: true, adminUid: "host"))
        #expect(try bob.data(MeetingUserInfo.self, confirmed.text).trackDescs == [.mic])
        // The host is not bound by mute all.
        #expect(try await host.call(.requestOpenMic, OpenReq()).ok)
        #expect(try await host.call(.adminKick, TargetReq(uid: "host")).error?.code == 40002)
        #expect(try await host.call(.adminKick, TargetReq(uid: "nobody")).error?.code == 40401)
        for s in [host, bob] { s.close() }
        await server.stop()
    }

    @Test func malformedAndOversizedMessagesGetErrorsAndDisturbNobody() async throws {
        let server = try makeMeetingServer(grace: 1)
        let good = try await MeetingTestSocket(url: server.meetingURL)
        try await good.login(server.memberToken(uid: "good"))
        let m = try good.data(MeetingInfo.self, try await good.call(.createRoom, MeetingCreateReq(title: "r")).text)
        #expect(try await good.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        let bad = try await MeetingTestSocket(url: server.meetingURL)
        try await bad.login(server.memberToken(uid: "bad"))
        #expect(try await bad.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)

        // Unknown type with an id, missing and mistyped fields: error responses naming the problem.
        bad.send(raw: #"{"id": 900, "type": "fly"}"#)
        #expect(try await bad.response(id: 900).error?.code == 40001)
        bad.send(raw: #"{"id": 901, "type": "send_chat", "data": {}}"#)
        let missing = try await bad.response(id: 901)
        #expect(missing.error?.code == 40001 && missing.error?.message == "missing field text")
        bad.send(raw: #"{"id": 902, "type": "request_share", "data": {"share_type": "wide"}}"#)
        #expect(try await bad.response(id: 902).error?.code == 40001)
        bad.send(raw: #"{"id": 903, "type": "send_chat", "data": {"text": "\#(String(repeating: "x", count: 5000))"}}"#)
        #expect(try await bad.response(id: 903).error?.code == 41301)
        // Seeded junk without ids: dropped (fewer than the 20 a session may send in 10 s).
        var random = SeededRandom(seed: 0x5EED_4EE7)
        for _ in 0..<15 {
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0x20...0x7e, using: &random) }
            bad.send(raw: String(decoding: bytes, as: UTF8.self))
        }
        // Still served, and the other member saw nothing but the chat.
        let chat = try await bad.call(.sendChat, ChatReq(text: "still here"))
        #expect(chat.ok)
        try await good.waitEvent(.chat)
        #expect(good.events.filter { $0 != "user_entered" } == ["chat"])

        // Over 64 KiB: the socket is closed with 1009; after the grace period (nobody resumed the
        // session) the other member sees bad leave.
        bad.send(raw: #"{"id": 904, "type": "ping", "data": {"pad": ""# + String(repeating: "y", count: 70_000) + #""}}"#)
        let info = await bad.socket.closed()
        #expect(info.code == .messageTooBig)
        let exited = try good.data(UserExitedEvent.self, try await good.waitEvent(.userExited))
        #expect(exited.user.uid == "bad" && exited.reason == .disconnected)
        #expect(try await good.call(.ping).ok)
        good.close()
        await server.stop()
    }

    /// `admin_create_ingress` / `admin_delete_ingress` (docs/meeting-protocol.md, "Ingress"): host
    /// and co-hosts only, a checked nickname, and on a server without an ingress module the
    /// server's refusal (`wrong_state`) is the answer; nothing is listed in the room then.
    /// (With the ingress module: interop/test_browser_meet_ingress.py.)
    @Test func ingressRequestsAreForAdminsAndNeedTheIngressModule() async throws {
        let server = try makeMeetingServer()
        let host = try await MeetingTestSocket(url: server.meetingURL)
        try await host.login(server.memberToken(uid: "host"))
        let meeting = try host.data(MeetingInfo.self, try await host.call(.createRoom, MeetingCreateReq(title: "stream")).text)
        let entered = try host.data(EnterRoomResp.self, try await host.call(.enterRoom, MeetingEnterReq(roomNo: meeting.roomNo)).text)
        #expect(entered.room.ingresses == nil)
        let bob = try await MeetingTestSocket(url: server.meetingURL)
        try await bob.login(server.memberToken(uid: "bob"))
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(roomNo: meeting.roomNo)).ok)

        #expect(try await bob.call(.adminCreateIngress, CreateIngressReq()).error?.code == 40301)
        #expect(try await host.call(.adminCreateIngress, CreateIngressReq(nickname: "")).error?.code == 40002)
        let refused = try await host.call(.adminCreateIngress, CreateIngressReq(nickname: "OBS"))
        #expect(refused.error?.code == 40901, "\(refused.text)")
        #expect(try await host.call(.adminDeleteIngress, DeleteIngressReq(ingressId: "IN_nope")).error?.code == 40401)
        #expect(try await bob.call(.adminDeleteIngress, DeleteIngressReq(ingressId: "IN_nope")).error?.code == 40301)
        host.close()
        bob.close()
        await server.stop()
    }
}

/// Issue #8: a validly signed member token whose `exp` is near Int64.max logs in (it crashed the
/// server), and one at Int64.min is expired.
@Suite struct MeetingTokenExtremesTests {
    @Test func farFutureAndFarPastExpiryAtLogin() async throws {
        let server = try makeMeetingServer()
        func token(_ exp: Int64) -> String {
            AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: "far", iat: 0, nbf: 0, exp: exp, jti: UUID().uuidString,
                                         member: MemberGrant(nickname: nil)), key: TestServer.appKey)
        }
        let past = try await MeetingTestSocket(url: server.meetingURL)
        #expect(try await past.call(.login, LoginReq(token: token(Int64.min))).error?.code == 40107)
        let far = try await MeetingTestSocket(url: server.meetingURL)
        #expect(try await far.call(.login, LoginReq(token: token(Int64.max))).ok)
        #expect(try await far.call(.ping).ok)
        await server.stop()
    }
}
