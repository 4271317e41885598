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
        var shared = ServerConfig()
        try await TestStore.postgres.configure(&shared)
        let databaseURL = try #require(shared.databaseURL)
        let redisURL = try await TestRedis.freshURL()
        func node(_ id: String) throws -> TestServer {
            try TestServer(modules: [MeetingModule.factory]) { $0.redisURL = redisURL; $0.databaseURL = databaseURL; $0.nodeId = id }
        }
        let a = try node("a"), b = try node("b"), c = try node("c")

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
    /// channel over: the policies and lock the host set and the co-host it named hold there when
    /// the members enter again, and a member's raised hand is still raised.
    @Test func aMeetingsLiveRoomComesBackOnTheNodeThatTakesItOverAfterItsNodeDies() async throws {
        var shared = ServerConfig()
        try await TestStore.postgres.configure(&shared)
        let databaseURL = try #require(shared.databaseURL)
        let redisURL = try await TestRedis.freshURL()
        // Both idle: the meeting's channel, and so its live room, go to a (the smaller id).
        let a = try await TestNodeProcess(arguments: ["--redis-url", redisURL, "--database-url", databaseURL, "--node-id", "a"])
        let b = try TestServer(modules: [MeetingModule.factory]) { $0.redisURL = redisURL; $0.databaseURL = databaseURL; $0.nodeId = "b" }
        let (created, meeting) = try await b.call("/server/v1/meeting/create", ["host_uid": "alice", "title": "Failover"])
        #expect(created == 200)
        let meetingId = try #require(meeting["meeting_id"] as? String)
        // Every member's WebSocket reaches b, which relays it to a.
        func enter(_ uid: String) async throws -> (MeetingTestSocket, (ok: Bool, text: String, error: MeetingErrorBody?)) {
            let socket = try await MeetingTestSocket(url: b.meetingURL)
            try await socket.login(b.memberToken(uid: uid))
            return (socket, try await socket.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)))
        }
        let (alice, aliceIn) = try await enter("alice")
        let (bob, bobIn) = try await enter("bob")
        let (carol, carolIn) = try await enter("carol")
        #expect(aliceIn.ok && bobIn.ok && carolIn.ok, "\(aliceIn.text) \(bobIn.text) \(carolIn.text)")
        #expect(try await alice.call(.adminSetCoHost, TargetReq(uid: "bob", enable: true)).ok)
        #expect(try await alice.call(.adminMuteAll, PolicyReq(allow: false)).ok)
        #expect(try await alice.call(.adminLockRoom, PolicyReq(allow: true)).ok)
        #expect(try await carol.call(.raiseHand).ok)
        // a wrote the room's record after the last change.
        let redis = try RedisClient(url: redisURL)
        try await eventually("the room's record with carol's hand raised") {
            let json = try redis.command(["GET", "srtc:record:meeting:\(TestServer.appId)/\(meetingId)"]).text ?? ""
            return json.contains(#""locked":true"#) && json.contains(#""handRaised":true"#)
        }

        a.send(SIGKILL)
        _ = try await a.waitForExit()
        for socket in [alice, bob, carol] { socket.close() }
        // Until a's registry entry expires, entering answers "retry"; then b runs the room.
        var again: (MeetingTestSocket, (ok: Bool, text: String, error: MeetingErrorBody?))?
        try await eventually(timeout: 30, "alice enters again once a is gone: \(again?.1.text ?? "")") {
            again?.0.close()
            again = try await enter("alice")
            return again?.1.ok == true
        }
        let (aliceBack, aliceAgain) = try #require(again)
        let room = try aliceBack.data(EnterRoomResp.self, aliceAgain.text).room
        #expect(room.locked && room.muteAll && !room.allowSelfUnmute, "\(room)")
        // Bob is co-host still, so the lock lets him in; carol's hand is still raised.
        let (bobBack, bobAgain) = try await enter("bob")
        #expect(bobAgain.ok, "\(bobAgain.text)")
        #expect(try bobBack.data(EnterRoomResp.self, bobAgain.text).me.role == .coHost)
        // The lock holds for members; once the host lifts it, carol enters with her hand still raised.
        let (dave, daveIn) = try await enter("dave")
        #expect(daveIn.error?.code == MeetingErrorCode.roomLocked.rawValue, "\(daveIn.text)")
        #expect(try await aliceBack.call(.adminLockRoom, PolicyReq(allow: false)).ok)
        let (carolBack, carolAgain) = try await enter("carol")
        #expect(try carolBack.data(EnterRoomResp.self, carolAgain.text).me.handRaised)
        for socket in [aliceBack, bobBack, carolBack, dave] { socket.close() }
        await b.stop()
    }
}
