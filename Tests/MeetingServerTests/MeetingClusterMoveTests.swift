#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MeetingServer
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Testing
import TestWait

/// A meeting's live room moving to another node keeps its waiting room and its screen share
/// (docs/deploy.md, "Drain and failover"): across a drain and across a `kill -9` of the room's
/// node, the waiting room stays on as the host switched it live, a member waiting there waits
/// again (the host, back first, lists it meanwhile) until the host admits it on the new node, and
/// the sharer is still the sharer: nobody else may start a share until it stops.
extension MeetingClusterTests {
    typealias Answer = (ok: Bool, text: String, error: MeetingErrorBody?)

    /// Logs `uid` in on `server` and enters the meeting.
    private func enter(_ uid: String, _ meetingId: String, via server: TestServer) async throws -> (socket: MeetingTestSocket, answer: Answer) {
        let socket = try await MeetingTestSocket(url: server.meetingURL)
        try await socket.login(server.memberToken(uid: uid))
        return (socket, try await socket.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)))
    }

    /// Before the move: alice (host) switches the waiting room on, carol waits in it, bob shares
    /// his screen; returns once the room's record in Redis says so.
    private func waitingAndSharing(_ meetingId: String, via server: TestServer, redisURL: String) async throws
        -> (alice: MeetingTestSocket, bob: MeetingTestSocket, carol: MeetingTestSocket) {
        let alice = try await enter("alice", meetingId, via: server), bob = try await enter("bob", meetingId, via: server)
        #expect(alice.answer.ok && bob.answer.ok, "\(alice.answer.text) \(bob.answer.text)")
        // The meeting was created without a waiting room: the host turns it on live.
        #expect(try alice.socket.data(EnterRoomResp.self, alice.answer.text).room.waitingRoom == false)
        #expect(try await alice.socket.call(.adminSetWaitingRoom, PolicyReq(allow: true)).ok)
        let carol = try await enter("carol", meetingId, via: server)
        let carolIn = try carol.socket.data(EnterRoomResp.self, carol.answer.text)
        #expect(carolIn.waiting && carolIn.rtc == nil, "\(carol.answer.text)")
        #expect(try await alice.socket.waitEvent(.waitingEntered).contains("carol"))
        #expect(try await bob.socket.call(.requestShare, ShareReq(shareType: .screen)).ok)
        #expect(try await alice.socket.call(.requestShare, ShareReq(shareType: .whiteBoard)).error?.code == MeetingErrorCode.alreadySharing.rawValue)
        // The record written after bob's share (the last change) has carol waiting too.
        let redis = try RedisClient(url: redisURL)
        try await eventually("the room's record with the waiting room on and bob sharing") {
            let json = try redis.command(["GET", "srtc:record:meeting:\(TestServer.appId)/\(meetingId)"]).text ?? ""
            return json.contains(#""waitingRoom":true"#) && json.contains(#""sharingUid":"bob""#)
        }
        return (alice.socket, bob.socket, carol.socket)
    }

    /// After the move, alice is back (on the room's new node): the waiting room is on, carol
    /// (not back yet) is on her waiting list, bob shares. Then carol and bob come back through
    /// `via`: carol waits again, bob shares still, and a second share is refused as before;
    /// alice admits carol, who enters. Returns the sockets to close.
    private func expectWaitingAndSharingMoved(_ meetingId: String, alice: MeetingTestSocket, aliceAnswer: Answer,
                                              via server: TestServer) async throws -> [MeetingTestSocket] {
        let aliceIn = try alice.data(EnterRoomResp.self, aliceAnswer.text)
        #expect(aliceIn.me.role == .host && aliceIn.room.waitingRoom, "\(aliceAnswer.text)")
        #expect(aliceIn.room.sharingUid == "bob" && aliceIn.room.shareType == ShareType.screen.rawValue, "\(aliceIn.room)")
        #expect(aliceIn.waitingUsers.map(\.uid) == ["carol"], "\(aliceAnswer.text)")
        // Until carol is back, she cannot be admitted yet (she has no session to tell).
        #expect(try await alice.call(.adminAdmit, TargetReq(uid: "carol")).error?.code == MeetingErrorCode.wrongState.rawValue)

        // Carol's session enters again: she waits, not admitted, with no channel grant.
        let carol = try await enter("carol", meetingId, via: server)
        let carolIn = try carol.socket.data(EnterRoomResp.self, carol.answer.text)
        #expect(carol.answer.ok && carolIn.waiting && carolIn.rtc == nil && carolIn.users.isEmpty, "\(carol.answer.text)")
        // Bob is back sharing his screen (his SRTC session may publish `screen` again).
        let bob = try await enter("bob", meetingId, via: server)
        let bobIn = try bob.socket.data(EnterRoomResp.self, bob.answer.text)
        #expect(bobIn.me.shareState == ShareType.screen.rawValue && bobIn.me.trackDescs.contains(.screen), "\(bob.answer.text)")
        #expect(bobIn.room.sharingUid == "bob", "\(bobIn.room)")
        // A second share is refused, as before the move; so is bob's own twice.
        #expect(try await alice.call(.requestShare, ShareReq(shareType: .whiteBoard)).error?.code == MeetingErrorCode.alreadySharing.rawValue)
        #expect(try await bob.socket.call(.requestShare, ShareReq(shareType: .screen)).error?.code == MeetingErrorCode.wrongState.rawValue)
        // A newcomer waits too: the waiting room is on.
        let dave = try await enter("dave", meetingId, via: server)
        #expect(try dave.socket.data(EnterRoomResp.self, dave.answer.text).waiting, "\(dave.answer.text)")
        _ = try await alice.wait("dave waiting") { $0.first { $0.contains("waiting_entered") && $0.contains("dave") } }
        #expect(!alice.received.contains { $0.contains("waiting_entered") && $0.contains("carol") }, "carol was listed already: \(alice.received)")

        // The host admits carol on the new node: she gets her grant and enters.
        #expect(try await alice.call(.adminAdmit, TargetReq(uid: "carol")).ok)
        let admitted = try carol.socket.data(EnterRoomResp.self, try await carol.socket.waitEvent(.waitingAdmitted))
        #expect(!admitted.waiting && admitted.rtc != nil && admitted.me.uid == "carol", "\(admitted)")
        #expect(Set(admitted.users.map(\.uid)) == ["alice", "bob", "carol"])
        _ = try await alice.wait("carol entered") { $0.first { $0.contains("user_entered") && $0.contains(#""uid":"carol""#) } }
        // Once bob stops, someone else may share.
        #expect(try await bob.socket.call(.stopShare).ok)
        #expect(try await alice.call(.requestShare, ShareReq(shareType: .whiteBoard)).ok)
        return [carol.socket, bob.socket, dave.socket]
    }

    @Test func drainingTheMeetingsNodeKeepsItsWaitingRoomAndItsShare() async throws {
        let (a, b, c, meetingId, redisURL) = try await threeNodes(title: "Drain waiting and sharing")
        let before = try await waitingAndSharing(meetingId, via: a, redisURL: redisURL)
        let aliceSession = try #require(before.alice.received.compactMap { try? before.alice.data(LoginResp.self, $0) }.first).sessionId

        await a.app.drain(deadline: .zero)
        for s in [before.alice, before.bob, before.carol] { _ = try await s.closed() }
        #expect(!before.carol.events.contains("disconnected") && !before.carol.events.contains("waiting_removed"), "\(before.carol.events)")

        // Alice's session went with a: `rejoin`, and she enters again first, through c.
        let alice = try await MeetingTestSocket(url: c.meetingURL)
        let again = try alice.data(LoginResp.self, try await alice.call(.login, LoginReq(token: c.memberToken(uid: "alice"), sessionId: aliceSession,
                                                                                        lastSeq: lastSeq(before.alice))).text)
        #expect(!again.resumed && again.rejoin == true, "\(again)")
        let aliceIn = try await alice.call(.enterRoom, MeetingEnterReq(meetingId: meetingId))
        #expect(aliceIn.ok, "\(aliceIn.text)")
        let others = try await expectWaitingAndSharingMoved(meetingId, alice: alice, aliceAnswer: aliceIn, via: b)

        for s in [alice] + others { s.close() }
        await a.stop()
        await c.stop()
        await b.stop()
    }

    @Test func killingTheMeetingsNodeKeepsItsWaitingRoomAndItsShare() async throws {
        let (a, b, c, meetingId, redisURL) = try await nodesToKill(title: "Failover waiting and sharing")
        // Every member's WebSocket reaches b, which relays it to a.
        let before = try await waitingAndSharing(meetingId, via: b, redisURL: redisURL)

        a.send(SIGKILL)
        _ = try await a.waitForExit()
        for s in [before.alice, before.bob, before.carol] { s.close() }
        // Until a's registry entry expires, entering answers "retry"; then c runs the room.
        var back: (socket: MeetingTestSocket, answer: Answer)?
        try await eventually(timeout: 30, "alice enters again once a is gone: \(back?.answer.text ?? "")") {
            back?.socket.close()
            back = try await enter("alice", meetingId, via: c)
            return back?.answer.ok == true
        }
        let alice = try #require(back)
        let others = try await expectWaitingAndSharingMoved(meetingId, alice: alice.socket, aliceAnswer: alice.answer, via: c)

        for s in [alice.socket] + others { s.close() }
        await c.stop()
        await b.stop()
    }
}
