import Foundation
import MeetingServer
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Testing

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
}
