import Foundation
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Testing
import TestWait

/// Two nodes on loopback sharing one Redis: a client may connect to either, the channel runs on
/// one node, and the other relays the session (signaling) while media goes straight to the owner.
@Suite struct ClusterRelayTests {
    @Test func clientsOnDifferentNodesMeetInOneChannelAndExchangeMedia() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        // Both idle: the channel goes to "a" (ties broken by id), so alice, on b, is relayed.
        let alice = try await MediaTestClient(server: b, uid: "alice", channel: "m")
        #expect(a.app.channels.existingRoom(ChannelKey(appId: TestServer.appId, name: "m")) != nil)
        #expect(b.app.channels.count == 0)
        let bob = try await MediaTestClient(server: a, uid: "bob", channel: "m")
        #expect(bob.joined.users.map(\.uid) == ["alice"])
        let joined = try await alice.signal.event { if case .userJoined(let u) = $0 { return u }; return nil }
        #expect(joined.uid == "bob")

        // Alice's media (published through the relayed session) reaches bob, in order.
        let tracks = try await alice.publish(audioSSRC: 0xA11C_E001)
        let audio = try #require(tracks.first { $0.kind == .audio })
        try await bob.subscribe(audio.id)
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: 0xA11C_E001)
        try await publisher.run(seconds: 1.5, video: false)
        try await bob.waitForMediaToSettle()
        let ssrc = try #require(bob.announcedSSRC(of: audio.id))
        let packets = try #require(bob.subscribeEndpoint?.packets(ssrc: ssrc))
        #expect(packets.count > 40, "bob got \(packets.count) of ~75 audio packets")
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })

        // A kick through the owner's API reaches alice through the relay.
        #expect(try await a.call("/server/v1/channel/kick", ["channel": "m", "uid": "alice", "reason": "test"]).0 == 200)
        let told = try await alice.signal.event { if case .disconnected(let d) = $0 { return d }; return nil }
        #expect(told.reason == .kicked)

        // Once the channel ends on its owner, its owner entry is released.
        #expect(try await bob.signal.request(.leave).isSuccess)
        bob.close()
        let redis = try RedisClient(url: url)
        try await eventually(timeout: 10, "the channel's owner entry released") {
            try redis.command(["GET", "srtc:channel:\(TestServer.appId)/m"]) == .null
        }
        alice.close()
        await b.stop()
        await a.stop()
    }

    /// `cluster/edge`'s `open` connects this node to the candidates it names: only addresses the
    /// channel's node registered are accepted, so the app's key cannot aim a node's ICE checks
    /// and DTLS at any other address.
    @Test func aRelayOpensOnlyToMediaAddressesTheOwnerRegistered() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        let single = try TestServer()
        func open(_ node: TestServer, owner: String, candidates: [String]) async throws -> (Int, Int?) {
            let uplink: [String: Any] = ["ufrag": "edgeufrag", "pwd": "edgepasswordedgepassword", "owner_ufrag": "ownerufr",
                                         "owner_pwd": "ownerpasswordownerpassword", "candidates": candidates,
                                         "fingerprint": "sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":")]
            let (status, body) = try await node.call("/server/v1/cluster/edge", ["op": "open", "channel": "c", "owner": owner, "uplink": uplink])
            return (status, body["code"] as? Int)
        }
        let registered = try #require(await b.app.cluster?.registry.node(id: "a")?.mediaAddresses)
        #expect(registered == ["127.0.0.1 \(a.app.udpPort)"])
        // Another address, or a's address with another port, next to a registered one: refused.
        #expect(try await open(b, owner: "a", candidates: ["192.0.2.7 \(a.app.udpPort)"]) == (403, 40301))
        #expect(try await open(b, owner: "a", candidates: registered + ["127.0.0.1 \(a.app.udpPort &+ 1)"]) == (403, 40301))
        // A node that is not live, or the node itself, cannot own a relayed channel.
        #expect(try await open(b, owner: "z", candidates: registered) == (404, 40401))
        #expect(try await open(b, owner: "b", candidates: ["127.0.0.1 \(b.app.udpPort)"]) == (404, 40401))
        // A single node relays nothing.
        #expect(try await open(single, owner: "a", candidates: registered) == (409, 40901))
        #expect(b.app.edges.count == 0)
        // The owner's registered address opens the relay.
        #expect(try await open(b, owner: "a", candidates: registered).0 == 200)
        #expect(b.app.edges.count == 1)
        #expect(try await b.call("/server/v1/cluster/edge", ["op": "close", "channel": "c", "owner": "a"]).0 == 200)
        await single.stop()
        await b.stop()
        await a.stop()
    }

    @Test func eachWebhookIsSentOnceWhenTwoNodesShareTheOutbox() async throws {
        let hooks = try TestWebhookReceiver()
        let redisURL = try await TestRedis.freshURL()
        var shared = ServerConfig()
        try await TestStore.postgres.configure(&shared)
        let databaseURL = try #require(shared.cluster.databaseURL)
        let a = try TestServer(webhookURL: hooks.url) { $0.cluster.redisURL = redisURL; $0.cluster.databaseURL = databaseURL; $0.cluster.nodeId = "a" }
        let b = try TestServer(webhookURL: hooks.url) { $0.cluster.redisURL = redisURL; $0.cluster.databaseURL = databaseURL; $0.cluster.nodeId = "b" }
        // Events of two channels stored in the one outbox both nodes read.
        var clients: [TestSignalClient] = []
        for (server, uid, channel) in [(a, "alice", "x"), (b, "bob", "y"), (b, "carol", "x"), (a, "dave", "y")] {
            let client = try await TestSignalClient(url: server.wsURL)
            _ = try await client.join(token: server.token(uid: uid, channel: channel))
            clients.append(client)
        }
        try await eventually(timeout: 30, "6 webhooks; got \(hooks.deliveries.count)") { hooks.deliveries.count >= 6 }
        try await eventually(timeout: 30, "the outbox emptied") {
            try a.app.database.query("SELECT COUNT(*) FROM webhook_deliveries WHERE delivered_at IS NULL").first?.first?.int == 0
        }
        let deliveries = hooks.deliveries
        let ids = deliveries.compactMap { $0.json["event_id"] }
        #expect(ids.count == 6 && Set(ids).count == 6, "\(deliveries.map(\.json))")
        for channel in ["x", "y"] {
            let sequences = deliveries.filter { $0.json["channel"] == channel }.map(\.sequence)
            #expect(sequences == [1, 2, 3], "channel \(channel): \(sequences)")
        }
        #expect(deliveries.filter { !$0.signatureValid }.isEmpty)
        for client in clients { client.close() }
        await b.stop()
        await a.stop()
        await hooks.server.shutdown()
    }
}
