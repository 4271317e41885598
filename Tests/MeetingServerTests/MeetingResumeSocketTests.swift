import Foundation
import MeetingServer
import SMeetingProtocol
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing

/// Resuming a meeting session at the protocol level: events are numbered per session; a new
/// socket that logs in with the session id and the last `seq` it handled gets the rest, in order.
@Suite struct MeetingResumeSocketTests {
    @Test func eventsAreNumberedAndAResumeReplaysWhatWasMissed() async throws {
        let server = try makeMeetingServer(grace: 1)
        let host = try await MeetingTestSocket(url: server.meetingURL)
        try await host.login(server.memberToken(uid: "host"))
        let m = try host.data(MeetingInfo.self, try await host.call(.createRoom, MeetingCreateReq(title: "r")).text)
        #expect(try await host.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)

        let first = try await MeetingTestSocket(url: server.meetingURL)
        let login = try first.data(LoginResp.self, try await first.call(.login, LoginReq(token: server.memberToken(uid: "bob"))).text)
        #expect(!login.resumed && login.reconnectGraceSeconds == 1 && login.sessionId.hasPrefix("MS"))
        #expect(try await first.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        #expect(try await host.call(.sendChat, ChatReq(text: "one")).ok)
        try await first.waitEvent(.chat)
        let seqs = first.received.compactMap { try? MeetingCodec.head(of: $0) }.filter { $0.id == nil }.compactMap(\.seq)
        #expect(seqs == [1])

        // The socket goes; three events happen; the session resumes from seq 1.
        first.close()
        _ = await first.socket.closed()
        for text in ["two", "three"] { #expect(try await host.call(.sendChat, ChatReq(text: text)).ok) }
        #expect(try await host.call(.adminDisableChat, TargetReq(uid: "bob", enable: true)).ok)
        let second = try await MeetingTestSocket(url: server.meetingURL)
        let resumed = try second.data(LoginResp.self, try await second.call(.login, LoginReq(token: server.memberToken(uid: "bob"), sessionId: login.sessionId, lastSeq: 1)).text)
        #expect(resumed.resumed && resumed.sessionId == login.sessionId)
        try await second.waitEvent(.userChanged)
        let replayed = second.received.compactMap { try? MeetingCodec.head(of: $0) }.filter { $0.id == nil }
        #expect(replayed.map(\.seq) == [2, 3, 4] && replayed.map(\.type) == ["chat", "chat", "user_changed"])
        #expect(!host.events.contains("user_exited"))
        // Still in the meeting, with its state.
        #expect(try await second.call(.sendChat, ChatReq(text: "me")).error?.code == 40311)

        // An unknown session, or someone else's, is a new session: not resumed.
        let stranger = try await MeetingTestSocket(url: server.meetingURL)
        let other = try stranger.data(LoginResp.self, try await stranger.call(.login, LoginReq(token: server.memberToken(uid: "eve"), sessionId: login.sessionId, lastSeq: 4)).text)
        #expect(!other.resumed && other.sessionId != login.sessionId)
        #expect(try await stranger.call(.exitRoom).error?.code == 40902)

        // After the grace period the session is over: bob exits, a resume is refused.
        second.close()
        let exited = try host.data(UserExitedEvent.self, try await host.waitEvent(.userExited))
        #expect(exited.user.uid == "bob" && exited.reason == .disconnected)
        let late = try await MeetingTestSocket(url: server.meetingURL)
        let fresh = try late.data(LoginResp.self, try await late.call(.login, LoginReq(token: server.memberToken(uid: "bob"), sessionId: login.sessionId, lastSeq: 4)).text)
        #expect(!fresh.resumed)
        for s in [host, stranger, late] { s.close() }
        await server.stop()
    }

    @Test func aResumeThatMissedTooMuchStartsOver() async throws {
        let server = try makeMeetingServer()
        let s = try await MeetingTestSocket(url: server.meetingURL)
        let login = try s.data(LoginResp.self, try await s.call(.login, LoginReq(token: server.memberToken(uid: "bob"))).text)
        let m = try s.data(MeetingInfo.self, try await s.call(.createRoom, MeetingCreateReq(title: "r")).text)
        #expect(try await s.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        // A last_seq from the future cannot be resumed: the old session ends, the member exits.
        let other = try await MeetingTestSocket(url: server.meetingURL)
        let answer = try other.data(LoginResp.self, try await other.call(.login, LoginReq(token: server.memberToken(uid: "bob"), sessionId: login.sessionId, lastSeq: 99)).text)
        #expect(!answer.resumed)
        _ = await s.socket.closed()
        try await eventually("the old session exited") {
            let (_, info) = try await server.call("/server/v1/meeting/info", ["meeting_id": m.meetingId])
            return (info["members"] as? [Any])?.isEmpty == true
        }
        other.close()
        await server.stop()
    }
}
