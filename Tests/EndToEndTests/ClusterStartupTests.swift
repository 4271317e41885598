#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// A cluster started the way orchestrators start it (docs/deploy.md, "Starting nodes together"
/// and "Health and readiness"): `srtc-server` processes started in the same instant against a
/// new PostgreSQL database and a new Redis, a node started before its database answers, and a
/// Redis restarted under running nodes.
@Suite(.serialized) struct ClusterStartupTests {
    /// The test app's signaling URL on `node`.
    static func signalURL(_ node: TestNodeProcess) -> String { "ws://127.0.0.1:\(node.httpPort)/rtc/v1/ws" }

    /// A channel token of the test app (every node has its credentials).
    static func token(_ uid: String, _ channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: true, subscribe: true, publishData: true)),
                                key: TestServer.appKey)
    }

    /// One user through each node, all in `channel`: each sees the others, whichever node runs it.
    static func expectUsersMeet(through nodes: [TestNodeProcess], channel: String) async throws {
        var clients: [TestSignalClient] = []
        defer { clients.forEach { $0.close() } }
        for (index, node) in nodes.enumerated() {
            let client = try await TestSignalClient(url: signalURL(node))
            let joined = try await client.join(token: token("u\(index)", channel))
            #expect(Set(joined.users.map(\.uid)) == Set((0..<index).map { "u\($0)" }), "u\(index) joined through node \(index) and found \(joined.users.map(\.uid))")
            clients.append(client)
        }
        // The first user sees every later one arrive, through whichever node relays them.
        var seen: Set<String> = []
        while seen.count < nodes.count - 1 {
            let user = try await clients[0].event(timeout: 30, "user_joined") { if case .userJoined(let u) = $0, !seen.contains(u.uid) { return u }; return nil }
            seen.insert(user.uid)
        }
        #expect(seen == Set((1..<nodes.count).map { "u\($0)" }))
    }

    @Test func threeNodesStartedInTheSameInstantOnANewDatabaseAllComeUpAndTheirUsersMeet() async throws {
        for round in 1...5 {
            let database = try await TestPostgres.freshDatabaseURL()
            let redis = try await TestRedis.freshURL()
            let flags = ["--database-url", database, "--redis-url", redis]
            // Launched back to back, before any has run a statement: they race for the schema.
            let nodes = try (0..<3).map { try TestNodeProcess.launch(arguments: flags + ["--node-id", "r\(round)n\($0)"]) }
            defer { nodes.forEach { $0.send(SIGKILL); _ = $0.exitStatusIfEnded() } }
            for node in nodes {
                try await node.waitUntilHealthy()
                #expect(!node.log.contains("cannot start"), "round \(round): \(node.log.suffix(2000))")
            }
            let check = try PostgresDatabase(url: database)
            #expect(try Migrations.server.currentVersion(of: check) == Migrations.server.latestVersion)
            #expect(try check.query("SELECT COUNT(*) FROM srtc_schema").first?.first?.int == Int64(Migrations.server.latestVersion),
                    "round \(round): each schema step recorded once")
            try await Self.expectUsersMeet(through: nodes, channel: "start\(round)")
        }
    }

    @Test func aNodeStartedBeforeItsDatabaseComesUpOnceItAnswersAndOutlivesItsGoingAway() async throws {
        let postgres = try TestPostgres.Instance()
        let node = try TestNodeProcess.launch(arguments: ["--database-url", postgres.url(), "--startup-timeout", "120"])
        defer { node.send(SIGKILL); try? postgres.stop() }
        try await eventually(timeout: 30, "the node says what it waits for; log: \(node.log.suffix(1000))") {
            node.log.contains("waiting for PostgreSQL at postgres://postgres@127.0.0.1:\(postgres.port)/postgres")
        }
        #expect(node.exitStatusIfEnded() == nil, "the node waits instead of exiting")
        try await offPool { try postgres.start() }
        try await node.waitUntilHealthy()
        let (status, body) = try await node.get("/readyz")
        #expect(status == 200 && body.contains(#""status":"ready""#), "\(body)")

        // The database goes away under the running node: unhealthy with the reason, still serving
        // (it answers), then healthy again by itself once the database is back.
        try await offPool { try postgres.stop() }
        try await eventually(timeout: 30, "unhealthy without its database") { try await node.get("/healthz").status == 503 }
        let (_, down) = try await node.get("/healthz")
        #expect(down.contains(#""status":"unhealthy""#) && down.contains("database: "), "\(down)")
        #expect(try await node.get("/readyz").status == 503)
        try await offPool { try postgres.start() }
        try await eventually(timeout: 30, "healthy again") { try await node.get("/healthz").status == 200 }
        #expect(node.exitStatusIfEnded() == nil)
    }

    @Test func aNodeWhoseDatabaseNeverAnswersGivesUpAfterTheStartupTimeout() async throws {
        let port = try freeLoopbackPort()
        let node = try TestNodeProcess.launch(arguments: ["--database-url", "postgres://srtc:secret@127.0.0.1:\(port)/srtc", "--startup-timeout", "2"])
        defer { node.send(SIGKILL) }
        let status = try await node.waitForExit()
        #expect(status != 0)
        #expect(node.log.contains("did not answer within the start-up timeout (2 s, --startup-timeout)"), "\(node.log.suffix(2000))")
        #expect(!node.log.contains("secret"), "the password is never logged")
    }

    @Test func redisRestartedUnderRunningNodesMakesThemUnhealthyThenTheyRecoverAndJoinsWork() async throws {
        let redis = try TestRedis.Instance()
        try redis.start()
        let nodes = try await [TestNodeProcess(arguments: ["--redis-url", redis.url, "--node-id", "a"]),
                               TestNodeProcess(arguments: ["--redis-url", redis.url, "--node-id", "b"])]
        defer { nodes.forEach { $0.send(SIGKILL) }; try? redis.kill() }
        // Alice is in channel "kept" (run by a: idle nodes, ties go to the smaller id).
        let alice = try await TestSignalClient(url: Self.signalURL(nodes[0]))
        defer { alice.close() }
        _ = try await alice.join(token: Self.token("alice", "kept"))

        try await offPool { try redis.kill() }
        for node in nodes {
            try await eventually(timeout: 30, "\(node.url) reports unhealthy") { try await node.get("/healthz").status == 503 }
            let (status, body) = try await node.get("/healthz")
            #expect(status == 503 && body.contains(#""status":"unhealthy""#) && body.contains("redis: "), "\(body)")
            #expect(try await node.get("/readyz").status == 503)
        }
        // The node keeps serving what it can: its own channel's users still get answers.
        let (_, stillThere) = try await nodes[0].get("/healthz")
        #expect(stillThere.contains("redis"))

        // Redis comes back empty (no persistence): the nodes register and claim their channels again.
        try await offPool { try redis.start() }
        for node in nodes {
            try await eventually(timeout: 30, "\(node.url) healthy again") { try await node.get("/healthz").status == 200 }
            #expect(try await node.get("/readyz").status == 200)
        }
        #expect(nodes[0].log.contains("claimed 1 of this node's 1 channel(s) again"), "\(nodes[0].log.suffix(2000))")
        // Bob joins alice's channel through b and meets her on a; a new channel works too.
        let bob = try await TestSignalClient(url: Self.signalURL(nodes[1]))
        defer { bob.close() }
        let joined = try await bob.join(token: Self.token("bob", "kept"))
        #expect(joined.users.map(\.uid) == ["alice"])
        let arrived = try await alice.event(timeout: 30, "bob") { if case .userJoined(let u) = $0 { return u }; return nil }
        #expect(arrived.uid == "bob")
        try await Self.expectUsersMeet(through: nodes, channel: "new")
    }
}
