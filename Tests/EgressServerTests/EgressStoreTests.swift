@testable import EgressServer
import EgressProtocol
import Foundation
import SRTCServer
import SRTCTestSupport
import Testing

/// The egress tables on both engines (SQLite, PostgreSQL): schema versioning, recordings' metadata
/// through their lifecycle, what a restart finds unfinished, and composites' lifecycle.
@Suite struct EgressStoreTests {
    /// Unix milliseconds of late 2026: beyond 32 bits, so a column that is not 64-bit fails.
    static let t0: Int64 = 1_796_000_000_000

    static func recording(_ id: String, channel: String = "c", status: RecordingInfo.Status = .recording, startedAt: Int64 = t0,
                          kind: RecordingKind = .track, format: RecordingFormat = .webm, desc: String? = "camera_big") -> RecordingInfo {
        RecordingInfo(recordingId: id, channel: channel, kind: kind, format: format, uid: "alice", desc: desc,
                      file: "app/\(channel)/\(id).\(format.rawValue)", status: status, startedAt: startedAt)
    }

    @Test(arguments: TestStore.allCases)
    func migrationsAreVersionedOnTheirOwnAndIdempotent(_ kind: TestStore) async throws {
        let database = try await kind.open()
        try Migrations.server.apply(to: database)
        #expect(try EgressMigrations.schema.apply(to: database) == 0)
        #expect(try EgressMigrations.schema.apply(to: database) == 4)
        #expect(try EgressMigrations.schema.currentVersion(of: database) == 4)
        // The server's own version is untouched: both live in one database.
        #expect(try Migrations.server.currentVersion(of: database) == Migrations.server.latestVersion)
        try database.query("INSERT INTO egress_schema (version) VALUES (7)")
        #expect(throws: DatabaseError.schemaTooNew(found: 7, supported: 4)) { try EgressStore(database: database) }
    }

    /// Runs of captions in progress, per node (docs/captions.md, "A server restart"): saved,
    /// updated in place, listed for their node only, gone once deleted; the next final of a
    /// resumed run takes the seq after its last stored one.
    @Test(arguments: TestStore.allCases)
    func captionRunsAreKeptPerNodeUntilTheyEnd(_ kind: TestStore) async throws {
        let store = try EgressStore(database: try await kind.open())
        var info = CaptionsInfo(captionsId: "CC_a", channel: "room", language: "en-US", status: .running, restarts: 0, startedAt: Self.t0)
        let settings = CaptionSettings(uid: "srtc-captions-x", language: "en-US")
        store.saveCaptionRun(info, appId: "app", nodeId: "n1", settings: settings)
        store.saveCaptionRun(CaptionsInfo(captionsId: "CC_b", channel: "other", language: "en-US", status: .starting, restarts: 0, startedAt: Self.t0 + 1),
                             appId: "app", nodeId: "n2", settings: settings)
        info.restarts = 2
        info.status = .restarting
        store.saveCaptionRun(info, appId: "app", nodeId: "n1", settings: settings)
        let runs = store.captionRuns(nodeId: "n1")
        #expect(runs.count == 1 && runs.first?.appId == "app" && runs.first?.info == info && runs.first?.settings == settings, "\(runs)")
        #expect(store.captionRuns(nodeId: "n2").map(\.info.captionsId) == ["CC_b"])

        #expect(store.nextCaptionSeq(captionsId: "CC_a") == 0)
        for seq in 0..<3 {
            store.insertCaption(CaptionEntry(captionsId: "CC_a", uid: "alice", startMs: Self.t0 + Int64(seq), endMs: Self.t0 + Int64(seq) + 1, text: "\(seq)"),
                                seq: seq, appId: "app", channel: "room")
        }
        #expect(store.nextCaptionSeq(captionsId: "CC_a") == 3)
        store.deleteCaptionRun(id: "CC_a")
        #expect(store.captionRuns(nodeId: "n1").isEmpty && store.captionRuns(nodeId: "n2").count == 1)
    }

    /// Live captions' transcript: finals of one channel oldest first (by start, then arrival),
    /// filtered by run and start time, 64-bit times kept; another app or channel sees none.
    @Test(arguments: TestStore.allCases)
    func captionsAreListedInTimeOrderPerChannel(_ kind: TestStore) async throws {
        let store = try EgressStore(database: try await kind.open())
        let t = Self.t0
        let lines = [CaptionEntry(captionsId: "CC_a", uid: "alice", startMs: t + 5_000, endMs: t + 7_000, text: "second"),
                     CaptionEntry(captionsId: "CC_a", uid: "bob", startMs: t + 1_000, endMs: t + 3_000, text: "first"),
                     CaptionEntry(captionsId: "CC_b", uid: "alice", startMs: t + 9_000, endMs: t + 9_500, text: "later run")]
        for (seq, line) in lines.enumerated() { store.insertCaption(line, seq: seq, appId: "app", channel: "room") }
        store.insertCaption(CaptionEntry(captionsId: "CC_c", uid: "eve", startMs: t, endMs: t + 1, text: "elsewhere"), seq: 0, appId: "app", channel: "other")
        #expect(store.captions(appId: "app", channel: "room", captionsId: nil, sinceMs: nil, limit: 100).map(\.text) == ["first", "second", "later run"])
        #expect(store.captions(appId: "app", channel: "room", captionsId: "CC_a", sinceMs: nil, limit: 100) == [lines[1], lines[0]])
        #expect(store.captions(appId: "app", channel: "room", captionsId: nil, sinceMs: t + 5_000, limit: 1).map(\.text) == ["second"])
        #expect(store.captions(appId: "other-app", channel: "room", captionsId: nil, sinceMs: nil, limit: 100).isEmpty)
    }

    /// docs/ingress.md, "A server restart": an ingress is stored with its settings and port for
    /// its node, updated in place, and gone once deleted.
    @Test(arguments: TestStore.allCases)
    func anIngressIsKeptForItsNodeUntilItIsDeleted(_ kind: TestStore) async throws {
        let store = try EgressStore(database: try await kind.open())
        let settings = IngressSettings(kind: .rtmp, uid: "obs", input: "rtmp://127.0.0.1:41935/live/KEY", streamKey: "KEY",
                                       videoBitrate: 2_000_000, simulcast: true)
        var info = IngressInfo(ingressId: "IN_1", channel: "show", uid: "obs", kind: .rtmp, url: "rtmp://203.0.113.7:41935/live/KEY",
                               streamKey: "KEY", status: .waiting, sessions: 0, restarts: 0, createdAt: Self.t0)
        store.save(info, appId: "app", nodeId: "n1", settings: settings, port: 41935)
        store.save(IngressInfo(ingressId: "IN_2", channel: "show", uid: "cam", kind: .url, url: "https://example.com/a.m3u8", status: .waiting,
                               sessions: 0, restarts: 0, createdAt: Self.t0 + 1),
                   appId: "app", nodeId: "n2", settings: IngressSettings(kind: .url, uid: "cam", input: "https://example.com/a.m3u8", streamKey: nil,
                                                                          videoBitrate: 2_000_000, simulcast: false), port: nil)
        info.sessions = 3
        info.status = .publishing
        store.save(info, appId: "app", nodeId: "n1", settings: settings, port: 41935)
        let stored = store.ingresses(nodeId: "n1")
        #expect(stored.map(\.info) == [info] && stored.map(\.appId) == ["app"] && stored.map(\.port) == [41935])
        #expect(stored.first?.settings == settings)
        #expect(store.ingresses(nodeId: "n2").map(\.info.ingressId) == ["IN_2"] && store.ingresses(nodeId: "n2").first?.port == nil)
        store.deleteIngress(id: "IN_1")
        #expect(store.ingresses(nodeId: "n1").isEmpty)
    }

    @Test(arguments: TestStore.allCases)
    func aRecordingKeepsEveryFieldThroughItsLifecycle(_ kind: TestStore) async throws {
        let store = try EgressStore(database: try await kind.open())
        var r = Self.recording("RC_1", status: .starting)
        try store.insert(r, appId: "app", path: "/data/recordings/app/c/RC_1.webm")
        #expect(store.recording(appId: "app", id: "RC_1")?.info == r)
        #expect(store.recording(appId: "app", id: "RC_1")?.path == "/data/recordings/app/c/RC_1.webm")
        #expect(store.recording(appId: "other", id: "RC_1") == nil, "another app does not see it")

        r.status = .finished
        r.endedAt = Self.t0 + 10_250
        r.durationMs = 10_250
        r.sizeBytes = 5_000_000_000
        store.update(r)
        #expect(store.recording(appId: "app", id: "RC_1")?.info == r)

        var failed = Self.recording("RC_2", kind: .composite, format: .mp4, desc: nil)
        try store.insert(failed, appId: "app", path: "/p2")
        failed.status = .failed
        failed.error = "storage_failed: No space left on device"
        store.update(failed)
        #expect(store.recording(appId: "app", id: "RC_2")?.info == failed)
        // An id is stored once.
        #expect(throws: DatabaseError.self) { try store.insert(Self.recording("RC_1"), appId: "app", path: "/again") }
    }

    @Test(arguments: TestStore.allCases)
    func listsFilterByChannelAndStatusNewestFirstWithinTheLimit(_ kind: TestStore) async throws {
        let store = try EgressStore(database: try await kind.open())
        let rows: [(String, String, RecordingInfo.Status, Int64)] = [
            ("RC_a", "one", .finished, 1), ("RC_b", "one", .recording, 3), ("RC_c", "two", .finished, 2), ("RC_d", "one", .finished, 4),
        ]
        for (id, channel, status, offset) in rows {
            try store.insert(Self.recording(id, channel: channel, status: status, startedAt: Self.t0 + offset), appId: "app", path: "/" + id)
        }
        try store.insert(Self.recording("RC_x", channel: "one"), appId: "other", path: "/x")
        #expect(store.recordings(appId: "app", channel: nil, status: nil, limit: 10).map(\.recordingId) == ["RC_d", "RC_b", "RC_c", "RC_a"])
        #expect(store.recordings(appId: "app", channel: "one", status: nil, limit: 10).map(\.recordingId) == ["RC_d", "RC_b", "RC_a"])
        #expect(store.recordings(appId: "app", channel: "one", status: .finished, limit: 10).map(\.recordingId) == ["RC_d", "RC_a"])
        #expect(store.recordings(appId: "app", channel: nil, status: nil, limit: 2).map(\.recordingId) == ["RC_d", "RC_b"])
        #expect(store.recordings(appId: "app", channel: "three", status: nil, limit: 10).isEmpty)
    }

    @Test(arguments: TestStore.allCases)
    func aRestartFindsTheRecordingsLeftOpenInEveryApp(_ kind: TestStore) async throws {
        let database = try await kind.open()
        let store = try EgressStore(database: database)
        try store.insert(Self.recording("RC_s", status: .starting), appId: "app", path: "/s")
        try store.insert(Self.recording("RC_r", status: .recording), appId: "app2", path: "/r")
        try store.insert(Self.recording("RC_f", status: .finished), appId: "app", path: "/f")
        try store.insert(Self.recording("RC_i", status: .incomplete), appId: "app", path: "/i")
        // The next run opens the same database.
        let again = try EgressStore(database: database)
        let open = again.unfinishedRecordings().sorted { $0.info.recordingId < $1.info.recordingId }
        #expect(open.map(\.info.recordingId) == ["RC_r", "RC_s"])
        #expect(open.map(\.appId) == ["app2", "app"] && open.map(\.path) == ["/r", "/s"])
    }

    @Test(arguments: TestStore.allCases)
    func compositesAreStoredUpdatedAndClosedByTheNextRun(_ kind: TestStore) async throws {
        let database = try await kind.open()
        let store = try EgressStore(database: database)
        let settings = CompositeSettings(uid: "mcu", layout: .speaker, width: 640, height: 360, frameRate: 15)
        func composite(_ id: String, _ status: CompositeInfo.Status) -> CompositeInfo {
            CompositeInfo(compositeId: id, channel: "c", uid: "mcu", layout: .speaker, width: 640, height: 360, frameRate: 15, bitrate: 1_000_000,
                          audio: true, status: status, restarts: 0, startedAt: Self.t0)
        }
        store.insert(composite("CP_1", .starting), appId: "app", settings: settings)
        store.insert(composite("CP_2", .starting), appId: "app", settings: settings)
        var running = composite("CP_1", .restarting)
        running.restarts = 2
        running.error = "the worker exited (status 9)"
        store.update(running)
        var stopped = composite("CP_2", .stopped)
        stopped.endedAt = Self.t0 + 60_000
        store.update(stopped)

        func row(_ id: String) throws -> [SQLValue] {
            try #require(try database.query("SELECT status, error, restarts, ended_at, settings, app_id FROM egress_composites WHERE composite_id = ?",
                                             [.text(id)]).first)
        }
        let first = try row("CP_1")
        #expect(first[0].string == "restarting" && first[1].string == running.error && first[2].int == 2 && first[3] == .null)
        let stored = try JSONDecoder().decode(CompositeSettings.self, from: Data((first[4].string ?? "").utf8))
        #expect(stored == settings && first[5].string == "app")

        store.closeUnfinishedComposites(now: Self.t0 + 90_000)
        let closed = try row("CP_1"), untouched = try row("CP_2")
        #expect(closed[0].string == "stopped" && closed[1].string == "the server restarted" && closed[3].int == Self.t0 + 90_000)
        #expect(untouched[0].string == "stopped" && untouched[1] == .null && untouched[3].int == Self.t0 + 60_000)
    }
}
