import Foundation
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Testing
import TestWait

/// What the nodes of a cluster share through a real `redis-server`: the node registry with
/// heartbeats and load, channel ownership, the nonce replay cache and the join limit.
@Suite struct ClusterTests {
    static func registry(_ url: String, _ id: String, ttl: Duration = .seconds(6)) throws -> NodeRegistry {
        NodeRegistry(redis: try RedisClient(url: url), node: NodeInfo(id: id, httpURL: "http://127.0.0.1:1/\(id)"), ttl: ttl)
    }

    @Test func theClientRoundTripsValuesAndNamesErrors() async throws {
        let redis = try RedisClient(url: try await TestRedis.freshURL())
        #expect(try redis.command(["SET", "k", "two words\n\"quoted\" ü"]) == .status("OK"))
        #expect(try redis.command(["GET", "k"]) == .string("two words\n\"quoted\" ü"))
        #expect(try redis.command(["GET", "missing"]) == .null)
        #expect(try await redis.run(["INCR", "n"]) == .integer(1))
        #expect(try redis.command(["RPUSH", "l", "a", "b"]) == .integer(2))
        #expect(try redis.command(["LRANGE", "l", "0", "-1"]) == .array([.string("a"), .string("b")]))
        #expect(throws: RedisError.self) { try redis.command(["INCR", "k"]) }  // not an integer: an error reply
        #expect(try redis.command(["PING"]) == .status("PONG"))  // and the connection still works
    }

    @Test func badURLsAndAnUnreachableServerAreClearErrors() throws {
        for url in ["http://x", "redis://", "redis://h:1/notanumber"] {
            #expect(throws: RedisError.self, "\(url)") { try RedisClient.Endpoint(url: url) }
        }
        let endpoint = try RedisClient.Endpoint(url: "redis://:secret@10.0.0.1:6380/3")
        #expect(endpoint.host == "10.0.0.1" && endpoint.port == 6380 && endpoint.password == "secret" && endpoint.database == 3)
        let port = try freeLoopbackPort()
        do {
            _ = try RedisClient(url: "redis://127.0.0.1:\(port)", timeoutSeconds: 2)
            Issue.record("connected to a closed port")
        } catch {
            guard case .connection = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func nodesAreListedWithTheirLoadAndADeadNodeDisappears() async throws {
        let url = try await TestRedis.freshURL()
        let a = try Self.registry(url, "a"), b = try Self.registry(url, "b", ttl: .seconds(2))
        try a.beat((channels: 3, participants: 10))
        try b.beat((channels: 1, participants: 2))
        let both = try await a.liveNodes()
        #expect(both.map(\.id) == ["b", "a"])  // least loaded first
        #expect(both.last?.channels == 3 && both.last?.participants == 10 && both.last?.httpURL == "http://127.0.0.1:1/a")
        // b stops beating: gone once its key expires, with nobody deciding it.
        try await eventually(timeout: 10, "b expired") { try await a.liveNodes().map(\.id) == ["a"] }
        // A clean leave is seen at once.
        a.leave()
        #expect(try await b.liveNodes().isEmpty)
    }

    @Test func aChannelGoesToTheLeastLoadedNodeNotDrainingAndStaysThere() async throws {
        let url = try await TestRedis.freshURL()
        let a = try Self.registry(url, "a"), b = try Self.registry(url, "b"), c = try Self.registry(url, "c")
        try a.beat((1, 5)); try b.beat((1, 1)); try c.beat((0, 0))
        try c.setDraining(true)
        let room = ChannelKey(appId: "app", name: "room1")
        #expect(try await ChannelDirectory(registry: a).owner(of: room).id == "b")
        // Sticky: b stays the owner when it gets busier and even while it drains.
        try b.beat((9, 90))
        try b.setDraining(true)
        #expect(try await ChannelDirectory(registry: c).owner(of: room).id == "b")
        // A new channel skips the draining nodes.
        #expect(try await ChannelDirectory(registry: c).owner(of: ChannelKey(appId: "app", name: "room2")).id == "a")
        // Only the owner releases; then the channel is assigned afresh.
        await ChannelDirectory(registry: a).release(room)
        #expect(try await ChannelDirectory(registry: a).owner(of: room).id == "b")
        await ChannelDirectory(registry: b).release(room)
        #expect(try await ChannelDirectory(registry: a).owner(of: room).id == "a")
        try a.setDraining(true)
        await #expect(throws: ClusterError.noNodeAvailable) { try await ChannelDirectory(registry: a).owner(of: ChannelKey(appId: "app", name: "room3")) }
    }

    @Test func aDeadOwnersChannelIsReassignedAndRacingNodesAgree() async throws {
        let url = try await TestRedis.freshURL()
        let dying = try Self.registry(url, "a", ttl: .seconds(2))
        let b = try Self.registry(url, "b"), c = try Self.registry(url, "c")
        try dying.beat((0, 0)); try b.beat((2, 2)); try c.beat((2, 2))
        let room = ChannelKey(appId: "app", name: "room")
        #expect(try await ChannelDirectory(registry: b).owner(of: room).id == "a")
        try await eventually(timeout: 10, "a expired") { try await !b.liveNodes().contains { $0.id == "a" } }
        // b and c ask at once; both must get the same new owner.
        async let fromB = ChannelDirectory(registry: b).owner(of: room)
        async let fromC = ChannelDirectory(registry: c).owner(of: room)
        let (ownerB, ownerC) = try await (fromB, fromC)
        #expect(ownerB.id == ownerC.id && ownerB.id != "a")
    }

    @Test func theJoinLimitIsCountedAcrossNodes() async throws {
        let url = try await TestRedis.freshURL()
        let onA = ClusterJoinLimiter(redis: try RedisClient(url: url), joinsPerSecond: 3)
        let onB = ClusterJoinLimiter(redis: try RedisClient(url: url), joinsPerSecond: 3)
        let room = ChannelKey(appId: "app", name: "room")
        let second: Int64 = 1_800_000_000_000
        var admitted: [Bool] = []
        for limiter in [onA, onB, onA, onB] { admitted.append(await limiter.admit(room, nowMilliseconds: second + 100)) }
        #expect(admitted == [true, true, true, false])
        #expect(await onB.admit(ChannelKey(appId: "app", name: "other"), nowMilliseconds: second + 200))  // per channel
        #expect(await onB.admit(room, nowMilliseconds: second + 1000))  // next second
    }

    @Test func aNonceUsedOnOneNodeIsRefusedOnAnother() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        let nonce = UUID().uuidString
        let body: [String: Any] = ["channel": "c1", "uid": "u1"]
        #expect(try await a.call("/server/v1/channel/grant", body, nonce: nonce).0 == 200)
        let (status, error) = try await b.call("/server/v1/channel/grant", body, nonce: nonce)
        #expect(status == 401 && error["code"] as? Int == APIErrorCode.nonceReplayed.rawValue, "\(status) \(error)")
        #expect(try await b.call("/server/v1/channel/grant", body).0 == 200)
        // Both nodes registered themselves with their HTTP URL; a stopped node leaves at once.
        let registry = try #require(a.app.cluster?.registry)
        #expect(try await registry.liveNodes().map(\.id).sorted() == ["a", "b"])
        #expect(try await registry.liveNodes().first { $0.id == "b" }?.httpURL == "http://127.0.0.1:\(b.app.httpPort)")
        await b.stop()
        #expect(try await registry.liveNodes().map(\.id) == ["a"])
        await a.stop()
    }
}
