import Foundation
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Testing
import TestWait

/// A channel's sessions moving to another node (docs/deploy.md, "Drain and failover"), at the
/// signaling level: the owner's record in Redis, the drain's `reconnect`, and the resume with
/// the same session on the node that takes the channel over.
@Suite struct ClusterHandoffTests {
    @Test func aDrainedChannelsSessionsResumeOnTheNextNodeWithoutAnyoneLeaving() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        let alice = try await TestSignalClient(url: a.wsURL)
        let aliceJoin = try await alice.join(token: a.token(uid: "alice", channel: "m"), nickname: "Alice")
        let bob = try await TestSignalClient(url: a.wsURL)
        let bobJoin = try await bob.join(token: a.token(uid: "bob", channel: "m"))
        #expect(a.app.channels.count == 1 && b.app.channels.count == 0)

        // The owner keeps the channel's sessions in Redis.
        let redis = try RedisClient(url: url)
        try await eventually(timeout: 10, "both sessions recorded") {
            guard case .string(let json) = try redis.command(["GET", "srtc:room:\(TestServer.appId)/m"]),
                  let record = try? JSONDecoder().decode(RoomRecord.self, from: Data(json.utf8)) else { return false }
            return record.sessions.map(\.sessionId) == [aliceJoin.sessionId, bobJoin.sessionId]
                && record.sessions.first?.nickname == "Alice"
        }

        // a drains: each client is told to reconnect; the channel is no longer a's.
        await a.app.drain(deadline: .zero)
        for client in [alice, bob] {
            let notice = try await client.event { if case .reconnect(let r) = $0 { return r }; return nil }
            #expect(notice.reason == "node_draining")
        }
        #expect(a.app.channels.count == 0)

        // Both resume on b with their session ids: the same users, joined when they were.
        let alice2 = try await TestSignalClient(url: b.wsURL)
        let resumed = try await alice2.join(token: b.token(uid: "alice", channel: "m"), sessionId: aliceJoin.sessionId)
        #expect(resumed.resumed && resumed.moved == true && resumed.sessionId == aliceJoin.sessionId)
        #expect(resumed.users.map(\.uid) == ["bob"] && resumed.users.first?.joinedAt == bobJoin.me.joinedAt)
        #expect(resumed.me.nickname == "Alice")
        let bob2 = try await TestSignalClient(url: b.wsURL)
        let bobResumed = try await bob2.join(token: b.token(uid: "bob", channel: "m"), sessionId: bobJoin.sessionId)
        #expect(bobResumed.resumed && bobResumed.moved == true && bobResumed.users.map(\.uid) == ["alice"])
        #expect(b.app.channels.existingRoom(ChannelKey(appId: TestServer.appId, name: "m")) != nil)
        // Nobody saw anyone leave; a second resume is an ordinary one. Each resumed client's
        // message reaches the other after every event the resumes caused (one ordered stream per
        // room, one ordered socket per client).
        for (sender, receiver) in [(alice2, bob2), (bob2, alice2)] {
            #expect(try await sender.request(.sendMessage(SendMessageRequest(data: "after the move"))) == .success(.empty))
            _ = try await receiver.event("the message sent after the move") { if case .message(let m) = $0, m.data == "after the move" { return m }; return nil }
        }
        for client in [alice, bob, alice2, bob2] {
            #expect(!client.events.contains { if case .userLeft = $0 { return true }; return false }, "\(client.events)")
        }
        alice2.close()
        let alice3 = try await TestSignalClient(url: b.wsURL)
        let again = try await alice3.join(token: b.token(uid: "alice", channel: "m"), sessionId: aliceJoin.sessionId)
        #expect(again.resumed && again.moved == nil)

        for client in [alice, bob, bob2, alice3] { client.close() }
        await b.stop()
        await a.stop()
    }

    /// The webhooks see one channel across the move: created once (by the first node), closed
    /// once (by the node that ran it last), one sequence.
    @Test func aChannelThatMovesIsCreatedOnceInTheWebhooks() async throws {
        let hooks = try TestWebhookReceiver()
        let url = try await TestRedis.freshURL()
        var shared = ServerConfig()
        try await TestStore.postgres.configure(&shared)
        let databaseURL = try #require(shared.cluster.databaseURL)
        let a = try TestServer(webhookURL: hooks.url) { $0.cluster.redisURL = url; $0.cluster.databaseURL = databaseURL; $0.cluster.nodeId = "a" }
        let b = try TestServer(webhookURL: hooks.url) { $0.cluster.redisURL = url; $0.cluster.databaseURL = databaseURL; $0.cluster.nodeId = "b" }
        let alice = try await TestSignalClient(url: a.wsURL)
        let join = try await alice.join(token: a.token(uid: "alice", channel: "w"))
        try await eventually(timeout: 30, "channel_created and user_joined delivered") { hooks.deliveries.count >= 2 }
        await a.app.drain(deadline: .zero)
        _ = try await alice.event { if case .reconnect = $0 { return true }; return nil }
        let moved = try await TestSignalClient(url: b.wsURL)
        let resumed = try await moved.join(token: b.token(uid: "alice", channel: "w"), sessionId: join.sessionId)
        #expect(resumed.resumed && resumed.moved == true)
        #expect(try await moved.request(.leave).isSuccess)
        await a.stop()
        try await eventually(timeout: 30, "channel_closed delivered") { hooks.deliveries.contains { $0.event == "channel_closed" } }
        let deliveries = hooks.deliveries.filter { $0.json["channel"] == "w" }
        #expect(deliveries.map { $0.event ?? "" } == ["channel_created", "user_joined", "user_left", "channel_closed"], "\(deliveries.map(\.json))")
        #expect(deliveries.map(\.sequence) == [1, 2, 3, 4])
        for client in [alice, moved] { client.close() }
        await b.stop()
    }

    @Test func aSessionThatDoesNotComeBackLeavesAfterTheGracePeriod() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer(grace: 1) { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer(grace: 1) { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        let alice = try await TestSignalClient(url: a.wsURL)
        let aliceJoin = try await alice.join(token: a.token(uid: "alice", channel: "m"))
        let bob = try await TestSignalClient(url: a.wsURL)
        _ = try await bob.join(token: a.token(uid: "bob", channel: "m"))
        let redis = try RedisClient(url: url)
        try await eventually(timeout: 10, "both sessions recorded") {
            guard case .string(let json) = try redis.command(["GET", "srtc:room:\(TestServer.appId)/m"]) else { return false }
            return json.contains("\"bob\"") && json.contains("\"alice\"")
        }
        await a.app.drain(deadline: .zero)
        // Only alice comes back: bob leaves (timeout) once the grace period passes on b.
        let alice2 = try await TestSignalClient(url: b.wsURL)
        let resumed = try await alice2.join(token: b.token(uid: "alice", channel: "m"), sessionId: aliceJoin.sessionId)
        #expect(resumed.resumed && resumed.users.map(\.uid) == ["bob"])
        let left = try await alice2.event { if case .userLeft(let u) = $0 { return u }; return nil }
        #expect(left.uid == "bob" && left.reason == .timeout)
        for client in [alice, bob, alice2] { client.close() }
        await b.stop()
        await a.stop()
    }
}
