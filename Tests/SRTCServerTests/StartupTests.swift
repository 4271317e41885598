import Foundation
import SRTCServer
import SRTCTestSupport
import Synchronization
import Testing

/// Start-up that cannot race (docs/deploy.md, "Starting nodes together"): schema changes and the
/// first app under the schema lock on both engines, waiting for services that are not up yet,
/// and what `/healthz` and `/readyz` answer.
@Suite struct StartupTests {
    /// Runs `body(i)` on `count` threads released at the same instant; the errors thrown.
    static func together(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
        let errors = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            Thread {
                gate.wait()
                do { try body(i) } catch { errors.withLock { $0.append("\(error)") } }
                group.leave()
            }.start()
        }
        for _ in 0..<count { gate.signal() }
        group.wait()
        return errors.withLock { $0 }
    }

    /// Every module's schema, as the server and its modules apply them at start.
    static let schemas: [@Sendable (any Database) throws -> Void] = [
        { try Migrations.server.apply(to: $0) },
        { try ModuleMigrations(name: "first", steps: [["CREATE TABLE first_things (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"],
                                                      ["ALTER TABLE first_things ADD COLUMN size INTEGER NOT NULL DEFAULT 0"]]).apply(to: $0) },
    ]

    @Test(arguments: TestStore.allCases)
    func connectionsMigratingTheSameNewStoreAtOnceAllSucceedAndApplyEachStepOnce(_ kind: TestStore) async throws {
        for round in 0..<5 {
            let connections = try await kind.openShared(count: 6)
            let errors = Self.together(connections.count) { i in
                for schema in Self.schemas { try schema(connections[i]) }
            }
            #expect(errors.isEmpty, "round \(round): \(errors)")
            let db = connections[0]
            #expect(try Migrations.server.currentVersion(of: db) == Migrations.server.latestVersion)
            #expect(try db.query("SELECT MAX(version), COUNT(*) FROM first_schema").first == [.integer(2), .integer(2)])
            if kind == .postgres {
                #expect(try db.query("SELECT COUNT(*) FROM srtc_schema").first?.first?.int == Int64(Migrations.server.latestVersion))
            }
        }
    }

    @Test(arguments: TestStore.allCases)
    func nodesStartingTogetherOnANewStoreMakeOneFirstApp(_ kind: TestStore) async throws {
        let connections = try await kind.openShared(count: 4)
        let created = Mutex<[App]>([])
        let stores = Mutex<[AppStore]>([])
        let errors = Self.together(connections.count) { i in
            try Migrations.server.apply(to: connections[i])
            let store = try AppStore(database: connections[i])
            if let app = try store.createFirstIfNone() { created.withLock { $0.append(app) } }
            stores.withLock { $0.append(store) }
        }
        #expect(errors.isEmpty, "\(errors)")
        let apps = created.withLock { $0 }
        #expect(apps.count == 1, "\(apps.map(\.appId))")
        // Every node knows the one app, whichever made it.
        for store in stores.withLock({ $0 }) { #expect(store.all == apps) }
        #expect(try AppStore(database: connections[0]).createFirstIfNone() == nil)
    }

    @Test func onlyErrorsThatTimeCanCureAreWaitedFor() {
        #expect(StartupWait.isTransient(DatabaseError.connection("could not connect to server: Connection refused")))
        #expect(StartupWait.isTransient(DatabaseError.postgres(state: "57P03", message: "the database system is starting up")))
        #expect(StartupWait.isTransient(DatabaseError.postgres(state: "08006", message: "connection failure")))
        #expect(StartupWait.isTransient(DatabaseError.sqlite(code: 5, message: "database is locked")))
        #expect(StartupWait.isTransient(RedisError.connection("Connection refused")))
        #expect(StartupWait.isTransient(RedisError.server("LOADING Redis is loading the dataset in memory")))
        #expect(!StartupWait.isTransient(DatabaseError.postgres(state: "28P01", message: "password authentication failed")))
        #expect(!StartupWait.isTransient(DatabaseError.schemaTooNew(found: 9, supported: 4)))
        #expect(!StartupWait.isTransient(RedisError.server("WRONGPASS invalid username-password pair")))
        #expect(!StartupWait.isTransient(RedisError.invalidURL("no host")))
    }

    @Test func aStepIsRetriedUntilItAnswersAndAPermanentErrorIsNot() throws {
        let attempts = Mutex(0)
        let value = try StartupWait(timeout: .seconds(30)).run(waitingFor: "a test service") { () throws -> Int in
            let n = attempts.withLock { $0 += 1; return $0 }
            if n < 3 { throw DatabaseError.connection("refused") }
            return 42
        }
        #expect(value == 42 && attempts.withLock { $0 } == 3)
        attempts.withLock { $0 = 0 }
        #expect(throws: DatabaseError.postgres(state: "28P01", message: "bad password")) {
            try StartupWait(timeout: .seconds(30)).run(waitingFor: "a test service") { () throws -> Void in
                attempts.withLock { $0 += 1 }
                throw DatabaseError.postgres(state: "28P01", message: "bad password")
            }
        }
        #expect(attempts.withLock { $0 } == 1)
    }

    @Test func aServiceThatNeverAnswersEndsTheWaitAtTheTimeoutWithTheLastError() {
        let wait = StartupWait(timeout: .seconds(1))
        do {
            try wait.run(waitingFor: "Redis at redis://:***@db:6379") { () throws -> Void in throw RedisError.connection("Connection refused") }
            Issue.record("no error")
        } catch let error as StartupError {
            #expect("\(error)" == "Redis at redis://:***@db:6379 did not answer within the start-up timeout (1 s, --startup-timeout): redis connection failed: Connection refused")
        } catch {
            Issue.record("\(error)")
        }
        #expect(StartupWait.redacted("postgres://srtc:hunter2@db:5432/srtc") == "postgres://srtc:***@db:5432/srtc")
        #expect(StartupWait.redacted("redis://:hunter2@cache:6379/0") == "redis://:***@cache:6379/0")
        #expect(StartupWait.redacted("redis://cache:6379") == "redis://cache:6379")
        #expect(StartupWait.redacted("postgres://db/srtc?user=srtc&password=hunter2") == "postgres://db/srtc?user=srtc&password=***")
    }

    @Test func healthAndReadinessTellABalancerTheTruth() throws {
        let health = NodeHealth(version: "9.9.9")
        func answer(_ r: (status: Int, body: [UInt8])) -> String { "\(r.status) \(String(decoding: r.body, as: UTF8.self))" }
        #expect(answer(health.liveness()) == #"200 {"draining":false,"status":"ok","version":"9.9.9"}"#)
        #expect(answer(health.readiness()) == #"503 {"draining":false,"status":"starting","version":"9.9.9"}"#)
        health.markStarted()
        #expect(answer(health.readiness()) == #"200 {"draining":false,"status":"ready","version":"9.9.9"}"#)
        health.report(.redis, failure: "redis connection failed: Connection refused")
        #expect(answer(health.liveness()) == #"503 {"draining":false,"reasons":["redis: redis connection failed: Connection refused"],"status":"unhealthy","version":"9.9.9"}"#)
        #expect(health.readiness().status == 503)
        health.report(.redis, failure: nil)
        #expect(health.liveness().status == 200 && health.readiness().status == 200)
        // Draining: alive (an orchestrator must not kill it), not ready (a balancer sends nobody new).
        health.markDraining()
        #expect(answer(health.liveness()) == #"200 {"draining":true,"status":"ok","version":"9.9.9"}"#)
        #expect(answer(health.readiness()) == #"503 {"draining":true,"status":"draining","version":"9.9.9"}"#)
    }
}
