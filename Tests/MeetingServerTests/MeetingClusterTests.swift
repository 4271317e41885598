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

/// Meetings on a cluster (docs/deploy.md, "A cluster of nodes"): three nodes sharing PostgreSQL
/// and Redis. A meeting's live room runs on one node; members whose meeting WebSocket reached
/// another node are relayed there, and the backend's calls on any node act on that room.
@Suite struct MeetingClusterTests {
    @Test func membersOnDifferentNodesMeetAndTheBackendReachesThemFromAnyNode() async throws {
        let nodes = try await TestServer.meetingCluster(["a", "b", "c"]).nodes
        let a = nodes[0], b = nodes[1], c = nodes[2]

        // Created through c (stored in PostgreSQL): every node knows it.
        let (created, meeting) = try await c.call("/server/v1/meeting/create", ["host_uid": "alice", "title": "Cluster"])
        #expect(created == 200)
        let meetingId = try #require(meeting["meeting_id"] as? String)

        // Alice enters through a, bob through b: one live room (on a, the idle node with the
        // smallest id), so each sees the other.
        let alice = try await MeetingTestSocket(url: a.meetingURL)
        try await alice.login(a.memberToken(uid: "alice"))
        #expect(try await alice.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)).ok)
        let bob = try await MeetingTestSocket(url: b.meetingURL)
        try await bob.login(b.memberToken(uid: "bob"))
        let entered = try await bob.call(.enterRoom, MeetingEnterReq(meetingId: meetingId))
        #expect(entered.ok, "\(entered.text)")
        #expect(entered.text.contains("alice"), "bob's answer lists alice: \(entered.text)")
        let joined = try await alice.waitEvent(.userEntered)
        #expect(joined.contains("\"bob\""))
        // The relayed session goes on: a chat from bob reaches alice.
        #expect(try await bob.call(.sendChat, ChatReq(text: "hi from b")).ok)
        let chat = try await alice.waitEvent(.chat)
        #expect(chat.contains("hi from b"))

        // The backend's calls through c act on the live room on a.
        let (infoStatus, info) = try await c.call("/server/v1/meeting/info", ["meeting_id": meetingId])
        #expect(infoStatus == 200)
        #expect(Set((info["members"] as? [[String: Any]])?.compactMap { $0["uid"] as? String } ?? []) == ["alice", "bob"], "\(info)")
        #expect(try await c.call("/server/v1/meeting/kick", ["meeting_id": meetingId, "uid": "bob"]).0 == 200)
        _ = try await bob.waitEvent(.kicked)
        _ = try await alice.waitEvent(.userExited)

        alice.close()
        bob.close()
        await c.stop()
        await b.stop()
        await a.stop()
    }

    /// A meeting's live room on a node that dies (`kill -9`) comes back on the node that takes its
    /// channel over: when the members enter again through another node, the host is host, the
    /// co-host it named is co-host, mute all and the lock hold (a member may not unmute herself, a
    /// newcomer is refused until the host unlocks), a raised hand is still raised, and events
    /// (chat) and media (audio packets, in order) flow between members on different nodes. A login
    /// naming a session the dead node ran is answered `rejoin`.
    @Test func aMeetingsLiveRoomComesBackOnTheNodeThatTakesItOverAfterItsNodeDies() async throws {
        let (a, b, c, meetingId, redisURL) = try await nodesToKill(title: "Failover")
        typealias Entered = (socket: MeetingTestSocket, answer: (ok: Bool, text: String, error: MeetingErrorBody?))
        func enter(_ uid: String, via server: TestServer) async throws -> Entered {
            let socket = try await MeetingTestSocket(url: server.meetingURL)
            try await socket.login(server.memberToken(uid: uid))
            return (socket, try await socket.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)))
        }
        // Every member's WebSocket reaches b, which relays it to a.
        let alice = try await enter("alice", via: b), bob = try await enter("bob", via: b), carol = try await enter("carol", via: b)
        #expect(alice.answer.ok && bob.answer.ok && carol.answer.ok, "\(alice.answer.text) \(bob.answer.text) \(carol.answer.text)")
        #expect(try await alice.socket.call(.adminSetCoHost, TargetReq(uid: "bob", enable: true)).ok)
        #expect(try await alice.socket.call(.adminMuteAll, PolicyReq(allow: false)).ok)
        #expect(try await alice.socket.call(.adminLockRoom, PolicyReq(allow: true)).ok)
        #expect(try await carol.socket.call(.raiseHand).ok)
        // a wrote the room's record after the last change.
        let redis = try RedisClient(url: redisURL)
        try await eventually("the room's record with carol's hand raised") {
            let json = try redis.command(["GET", "srtc:record:meeting:\(TestServer.appId)/\(meetingId)"]).text ?? ""
            return json.contains(#""locked":true"#) && json.contains(#""handRaised":true"#)
        }

        a.send(SIGKILL)
        _ = try await a.waitForExit()
        for m in [alice, bob, carol] { m.socket.close() }
        // Carol's session went with a: logging in with it through c starts a new one and says
        // `rejoin` (the SDKs then enter again by themselves).
        let carolSession = try #require(carol.socket.received.compactMap { try? carol.socket.data(LoginResp.self, $0) }.first).sessionId
        let lost = try await MeetingTestSocket(url: c.meetingURL)
        let again = try lost.data(LoginResp.self, try await lost.call(.login, LoginReq(token: c.memberToken(uid: "carol"), sessionId: carolSession)).text)
        #expect(!again.resumed && again.rejoin == true && again.sessionId != carolSession, "\(again)")
        lost.close()
        // Until a's registry entry expires, entering answers "retry"; then b or c runs the room.
        // Everyone comes back through c.
        var back: Entered?
        try await eventually(timeout: 30, "alice enters again once a is gone: \(back?.answer.text ?? "")") {
            back?.socket.close()
            back = try await enter("alice", via: c)
            return back?.answer.ok == true
        }
        let aliceBack = try #require(back)
        let aliceIn = try aliceBack.socket.data(EnterRoomResp.self, aliceBack.answer.text)
        #expect(aliceIn.room.locked && aliceIn.room.muteAll && !aliceIn.room.allowSelfUnmute, "\(aliceIn.room)")
        #expect(aliceIn.me.role == .host && aliceIn.room.hostUid == "alice")
        // Bob is co-host still, so the lock lets him in.
        let bobBack = try await enter("bob", via: c)
        #expect(bobBack.answer.ok, "\(bobBack.answer.text)")
        #expect(try bobBack.socket.data(EnterRoomResp.self, bobBack.answer.text).me.role == .coHost)
        // The lock holds for members; once the host lifts it, carol enters with her hand still
        // raised and sees the others, and mute all still keeps her from unmuting herself.
        let dave = try await enter("dave", via: c)
        #expect(dave.answer.error?.code == MeetingErrorCode.roomLocked.rawValue, "\(dave.answer.text)")
        #expect(try await aliceBack.socket.call(.adminLockRoom, PolicyReq(allow: false)).ok)
        let carolBack = try await enter("carol", via: c)
        let carolIn = try carolBack.socket.data(EnterRoomResp.self, carolBack.answer.text)
        #expect(carolIn.me.handRaised && carolIn.me.role == .member)
        #expect(Set(carolIn.users.map(\.uid)) == ["alice", "bob", "carol"])
        #expect(try await carolBack.socket.call(.requestOpenMic, OpenReq()).error?.code == MeetingErrorCode.policyForbidden.rawValue)

        // Events flow: bob's chat reaches alice.
        #expect(try await bobBack.socket.call(.sendChat, ChatReq(text: "after the failover")).ok)
        #expect(try await aliceBack.socket.waitEvent(.chat).contains("after the failover"))
        // Media flows in the meeting's channel: the host opens her microphone and publishes
        // through c; bob, through b, gets her audio packets in order.
        #expect(try await aliceBack.socket.call(.requestOpenMic, OpenReq()).ok)
        let aliceMedia = try await MediaTestClient(server: c, uid: "alice", token: try #require(aliceIn.rtc).token)
        let bobGrant = try #require(try bobBack.socket.data(EnterRoomResp.self, bobBack.answer.text).rtc)
        let bobMedia = try await MediaTestClient(server: b, uid: "bob", token: bobGrant.token)
        try await expectAudio(from: aliceMedia, to: bobMedia, ssrc: 0xA11C_E002)

        aliceMedia.close()
        bobMedia.close()
        for m in [aliceBack, bobBack, carolBack, dave] { m.socket.close() }
        await c.stop()
        await b.stop()
    }

    /// Node a in a process of its own (to `kill -9`), nodes b and c in this one, on one PostgreSQL
    /// and one Redis, and a meeting stored there. All idle: the meeting's channel, and so its live
    /// room, go to a (the smallest id).
    func nodesToKill(title: String) async throws -> (a: TestNodeProcess, b: TestServer, c: TestServer, meetingId: String, redisURL: String) {
        let (a, nodes, redisURL) = try await TestServer.meetingClusterWithNodeToKill()
        let (created, meeting) = try await nodes[0].call("/server/v1/meeting/create", ["host_uid": "alice", "title": title])
        #expect(created == 200)
        return (a, nodes[0], nodes[1], try #require(meeting["meeting_id"] as? String), redisURL)
    }

    /// Three in-process nodes on one PostgreSQL and one Redis, and a meeting stored there.
    func threeNodes(title: String) async throws -> (a: TestServer, b: TestServer, c: TestServer, meetingId: String, redisURL: String) {
        let (nodes, redisURL) = try await TestServer.meetingCluster(["a", "b", "c"])
        let (created, meeting) = try await nodes[2].call("/server/v1/meeting/create", ["host_uid": "alice", "title": title])
        #expect(created == 200)
        return (nodes[0], nodes[1], nodes[2], try #require(meeting["meeting_id"] as? String), redisURL)
    }

    /// `from` publishes audio for 1.5 s; `to` must receive most of its packets, in order.
    private func expectAudio(from: MediaTestClient, to: MediaTestClient, ssrc publisherSSRC: UInt32) async throws {
        let tracks = try await from.publish(audioSSRC: publisherSSRC)
        let audio = try #require(tracks.first { $0.kind == .audio })
        try await to.subscribe(audio.id)
        let publisher = try MediaTestPublisher(client: from, audioSSRC: publisherSSRC)
        try await publisher.run(seconds: 1.5, video: false)
        try await to.waitForMediaToSettle()
        let ssrc = try #require(to.announcedSSRC(of: audio.id))
        let packets = try #require(to.subscribeEndpoint?.packets(ssrc: ssrc))
        #expect(packets.count > 40, "got \(packets.count) of ~75 audio packets")
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
    }

    /// The `seq` of the last event `socket` received.
    func lastSeq(_ socket: MeetingTestSocket) -> Int {
        socket.received.compactMap { try? MeetingCodec.head(of: $0) }.compactMap(\.seq).max() ?? 0
    }

    /// A member whose meeting WebSocket reached node b (which relays it to a, where the meeting
    /// runs) loses it and comes back through node c: c relays the `login` to a, which resumes the
    /// same session with what it missed. Nobody saw the member leave; chat and audio flow.
    @Test func aMemberWhoseSocketBreaksResumesItsSessionThroughAnotherNode() async throws {
        let (a, b, c, meetingId, redisURL) = try await threeNodes(title: "Resume")
        // Alice enters through a (all idle: the meeting's channel, and its room, go to a).
        let alice = try await MeetingTestSocket(url: a.meetingURL)
        try await alice.login(a.memberToken(uid: "alice"))
        let aliceIn = try await alice.call(.enterRoom, MeetingEnterReq(meetingId: meetingId))
        #expect(aliceIn.ok, "\(aliceIn.text)")
        // Bob logs in on b, and enters: b hands his session to a and relays the socket there.
        let bob = try await MeetingTestSocket(url: b.meetingURL)
        let login = try bob.data(LoginResp.self, try await bob.call(.login, LoginReq(token: b.memberToken(uid: "bob"))).text)
        let bobIn = try await bob.call(.enterRoom, MeetingEnterReq(meetingId: meetingId))
        #expect(bobIn.ok, "\(bobIn.text)")
        let redis = try RedisClient(url: redisURL)
        try await eventually("bob's session record names a") {
            let json = try redis.command(["GET", "srtc:record:meeting-session:\(login.sessionId)"]).text ?? ""
            return json.contains(#""node":"a""#) && !json.contains("handoff")
        }
        #expect(try await alice.call(.raiseHand).ok)
        let raised = try await bob.waitEvent(.userChanged)
        #expect(raised.contains(#""seq":1"#), "a continues the session's numbering: \(raised)")
        let seen = lastSeq(bob)

        // Bob's socket breaks; meanwhile alice writes.
        bob.close()
        _ = try await bob.closed()
        #expect(try await alice.call(.sendChat, ChatReq(text: "while you were away")).ok)

        // Back through c, with the session and the last event handled: resumed, the chat follows.
        let back = try await MeetingTestSocket(url: c.meetingURL)
        let resumed = try back.data(LoginResp.self, try await back.call(.login, LoginReq(token: c.memberToken(uid: "bob"), sessionId: login.sessionId,
                                                                                          lastSeq: seen)).text)
        #expect(resumed.resumed && resumed.sessionId == login.sessionId && resumed.rejoin == nil, "\(resumed)")
        let missed = try await back.waitEvent(.chat)
        #expect(missed.contains("while you were away") && missed.contains("\"seq\":\(seen + 1)"), "\(missed)")
        // Still in the meeting, with his state: a chat from him reaches alice.
        #expect(try await back.call(.sendChat, ChatReq(text: "back through c")).ok)
        _ = try await alice.wait("bob's chat") { $0.first { $0.contains("back through c") } }
        #expect(!alice.events.contains("user_exited"), "\(alice.events)")

        // Audio flows in the meeting's channel: alice publishes through a, bob receives through c.
        #expect(try await alice.call(.requestOpenMic, OpenReq()).ok)
        let aliceMedia = try await MediaTestClient(server: a, uid: "alice", token: try #require(try alice.data(EnterRoomResp.self, aliceIn.text).rtc).token)
        let bobMedia = try await MediaTestClient(server: c, uid: "bob", token: try #require(try bob.data(EnterRoomResp.self, bobIn.text).rtc).token)
        try await expectAudio(from: aliceMedia, to: bobMedia, ssrc: 0xA11C_E003)

        aliceMedia.close()
        bobMedia.close()
        for s in [alice, back] { s.close() }
        await c.stop()
        await b.stop()
        await a.stop()
    }

    /// Draining the node that runs a meeting (`SIGTERM`) moves its members without telling them
    /// they were disconnected: their sockets close (1012 on that node, 1001 through a relaying
    /// node), their login through another node answers `rejoin`, and entering again puts them back
    /// in the room on its new node with their roles and states, the lock letting them in.
    @Test func drainingTheMeetingsNodeMovesItsMembersWithoutDisconnectingThem() async throws {
        let (a, b, c, meetingId, redisURL) = try await threeNodes(title: "Drain")
        let alice = try await MeetingTestSocket(url: a.meetingURL)
        let aliceLogin = try alice.data(LoginResp.self, try await alice.call(.login, LoginReq(token: a.memberToken(uid: "alice"))).text)
        #expect(try await alice.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)).ok)
        let bob = try await MeetingTestSocket(url: b.meetingURL)
        let bobLogin = try bob.data(LoginResp.self, try await bob.call(.login, LoginReq(token: b.memberToken(uid: "bob"))).text)
        #expect(try await bob.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)).ok)
        #expect(try await bob.call(.raiseHand).ok)
        #expect(try await alice.call(.adminLockRoom, PolicyReq(allow: true)).ok)
        let redis = try RedisClient(url: redisURL)
        try await eventually("the room's record, locked, with bob's hand raised") {
            let json = try redis.command(["GET", "srtc:record:meeting:\(TestServer.appId)/\(meetingId)"]).text ?? ""
            return json.contains(#""locked":true"#) && json.contains(#""handRaised":true"#)
        }

        await a.app.drain(deadline: .zero)
        #expect(try await alice.closed() == 1012)
        _ = try await bob.closed()
        #expect(!alice.events.contains("disconnected") && !bob.events.contains("disconnected"), "\(alice.events) \(bob.events)")
        #expect(!alice.events.contains("user_exited") && !bob.events.contains("user_exited"))

        // Back through c and b: their sessions went with a, so each gets a new one and `rejoin`.
        let alice2 = try await MeetingTestSocket(url: c.meetingURL)
        let aliceAgain = try alice2.data(LoginResp.self, try await alice2.call(.login, LoginReq(token: c.memberToken(uid: "alice"), sessionId: aliceLogin.sessionId,
                                                                                                lastSeq: lastSeq(alice))).text)
        #expect(!aliceAgain.resumed && aliceAgain.rejoin == true && aliceAgain.sessionId != aliceLogin.sessionId, "\(aliceAgain)")
        let aliceIn = try await alice2.call(.enterRoom, MeetingEnterReq(meetingId: meetingId))
        #expect(aliceIn.ok, "\(aliceIn.text)")
        let aliceRoom = try alice2.data(EnterRoomResp.self, aliceIn.text)
        #expect(aliceRoom.me.role == .host && aliceRoom.room.locked)
        let bob2 = try await MeetingTestSocket(url: b.meetingURL)
        let bobAgain = try bob2.data(LoginResp.self, try await bob2.call(.login, LoginReq(token: b.memberToken(uid: "bob"), sessionId: bobLogin.sessionId,
                                                                                            lastSeq: lastSeq(bob))).text)
        #expect(!bobAgain.resumed && bobAgain.rejoin == true, "\(bobAgain)")
        // The lock lets him in: he was in the room.
        let bobIn = try await bob2.call(.enterRoom, MeetingEnterReq(meetingId: meetingId))
        #expect(bobIn.ok, "\(bobIn.text)")
        let bobRoom = try bob2.data(EnterRoomResp.self, bobIn.text)
        #expect(bobRoom.me.handRaised && Set(bobRoom.users.map(\.uid)) == ["alice", "bob"])
        // A newcomer is still held by the lock.
        let dave = try await MeetingTestSocket(url: c.meetingURL)
        try await dave.login(c.memberToken(uid: "dave"))
        #expect(try await dave.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)).error?.code == MeetingErrorCode.roomLocked.rawValue)
        // Events flow on the room's new node; nobody was reported exited.
        #expect(try await bob2.call(.sendChat, ChatReq(text: "after the drain")).ok)
        _ = try await alice2.wait("bob's chat") { $0.first { $0.contains("after the drain") } }
        #expect(!alice2.events.contains("user_exited") && !alice2.events.contains("disconnected"))

        for s in [alice2, bob2, dave] { s.close() }
        await a.stop()
        await c.stop()
        await b.stop()
    }
}
