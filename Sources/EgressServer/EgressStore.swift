import EgressProtocol
import Foundation
import SRTCServer

/// The egress module's records in the server's database: every recording (its file, status and
/// figures, kept after it ends) and every composite's lifecycle.
final class EgressStore: Sendable {
    let database: Database

    init(database: Database) throws(DatabaseError) {
        self.database = database
        try EgressMigrations.schema.apply(to: database)
    }

    // MARK: - Recordings

    func insert(_ r: RecordingInfo, appId: String, path: String) throws(DatabaseError) {
        try database.query("""
            INSERT INTO egress_recordings (recording_id, app_id, channel, kind, format, uid, track_desc, path, file, status, started_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(r.recordingId), .text(appId), .text(r.channel), .text(r.kind.rawValue), .text(r.format.rawValue), .text(r.uid),
                  r.desc.map(SQLValue.text) ?? .null, .text(path), .text(r.file), .text(r.status.rawValue), .integer(r.startedAt)])
    }

    /// Stores a recording's new status and figures.
    func update(_ r: RecordingInfo) {
        _ = try? database.query("""
            UPDATE egress_recordings SET status = ?, error = ?, ended_at = ?, duration_ms = ?, size_bytes = ? WHERE recording_id = ?
            """, [.text(r.status.rawValue), r.error.map(SQLValue.text) ?? .null, r.endedAt.map(SQLValue.integer) ?? .null,
                  r.durationMs.map(SQLValue.integer) ?? .null, r.sizeBytes.map(SQLValue.integer) ?? .null, .text(r.recordingId)])
    }

    /// Recordings of an app, newest first.
    func recordings(appId: String, channel: String?, status: RecordingInfo.Status?, limit: Int) -> [RecordingInfo] {
        var sql = "SELECT \(Self.columns) FROM egress_recordings WHERE app_id = ?"
        var parameters: [SQLValue] = [.text(appId)]
        if let channel { sql += " AND channel = ?"; parameters.append(.text(channel)) }
        if let status { sql += " AND status = ?"; parameters.append(.text(status.rawValue)) }
        sql += " ORDER BY started_at DESC, recording_id LIMIT ?"
        parameters.append(.integer(Int64(limit)))
        return ((try? database.query(sql, parameters)) ?? []).compactMap { Self.recording(from: $0)?.info }
    }

    /// One recording of an app, with its absolute path.
    func recording(appId: String, id: String) -> (info: RecordingInfo, path: String)? {
        let rows = try? database.query("SELECT \(Self.columns) FROM egress_recordings WHERE app_id = ? AND recording_id = ?", [.text(appId), .text(id)])
        return rows?.first.flatMap(Self.recording(from:))
    }

    /// Recordings a previous run left open (the server or the machine died while they ran).
    func unfinishedRecordings() -> [(appId: String, info: RecordingInfo, path: String)] {
        let rows = (try? database.query("SELECT app_id, \(Self.columns) FROM egress_recordings WHERE status IN ('starting', 'recording')")) ?? []
        return rows.compactMap { row in
            guard let appId = row.first?.string, let r = Self.recording(from: Array(row.dropFirst())) else { return nil }
            return (appId, r.info, r.path)
        }
    }

    private static let columns = "recording_id, channel, kind, format, uid, track_desc, path, file, status, error, started_at, ended_at, duration_ms, size_bytes"

    private static func recording(from row: [SQLValue]) -> (info: RecordingInfo, path: String)? {
        guard row.count == 14, let id = row[0].string, let channel = row[1].string,
              let kind = row[2].string.flatMap(RecordingKind.init(rawValue:)), let format = row[3].string.flatMap(RecordingFormat.init(rawValue:)),
              let uid = row[4].string, let path = row[6].string, let file = row[7].string,
              let status = row[8].string.flatMap(RecordingInfo.Status.init(rawValue:)), let started = row[10].int else { return nil }
        return (RecordingInfo(recordingId: id, channel: channel, kind: kind, format: format, uid: uid, desc: row[5].string, file: file,
                              status: status, startedAt: started, endedAt: row[11].int, durationMs: row[12].int, sizeBytes: row[13].int,
                              error: row[9].string), path)
    }

    // MARK: - Composites

    func insert(_ c: CompositeInfo, appId: String, settings: CompositeSettings) {
        let json = (try? JSONEncoder().encode(settings)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        _ = try? database.query("""
            INSERT INTO egress_composites (composite_id, app_id, channel, uid, settings, status, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(c.compositeId), .text(appId), .text(c.channel), .text(c.uid), .text(json), .text(c.status.rawValue), .integer(c.startedAt)])
    }

    func update(_ c: CompositeInfo) {
        _ = try? database.query("UPDATE egress_composites SET status = ?, error = ?, restarts = ?, ended_at = ? WHERE composite_id = ?",
                                [.text(c.status.rawValue), c.error.map(SQLValue.text) ?? .null, .integer(Int64(c.restarts)),
                                 c.endedAt.map(SQLValue.integer) ?? .null, .text(c.compositeId)])
    }

    /// Composites a previous run left running: their channels are gone with it.
    func closeUnfinishedComposites(now: Int64) {
        _ = try? database.query("""
            UPDATE egress_composites SET status = 'stopped', error = 'the server restarted', ended_at = ?
            WHERE status IN ('starting', 'running', 'restarting')
            """, [.integer(now)])
    }

    // MARK: - Ingresses

    /// Stores an ingress (its settings, port and figures) while it exists, for the node `nodeId`.
    func save(_ i: IngressInfo, appId: String, nodeId: String, settings: IngressSettings, port: UInt16?) {
        let encoder = JSONEncoder()
        guard let info = try? encoder.encode(i), let settingsJSON = try? encoder.encode(settings) else { return }
        _ = try? database.query("""
            INSERT INTO egress_ingresses (ingress_id, app_id, node_id, channel, info, settings, port, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (ingress_id) DO UPDATE SET info = excluded.info, port = excluded.port
            """, [.text(i.ingressId), .text(appId), .text(nodeId), .text(i.channel), .text(String(decoding: info, as: UTF8.self)),
                  .text(String(decoding: settingsJSON, as: UTF8.self)), port.map { .integer(Int64($0)) } ?? .null, .integer(i.createdAt)])
    }

    func deleteIngress(id: String) {
        _ = try? database.query("DELETE FROM egress_ingresses WHERE ingress_id = ?", [.text(id)])
    }

    /// The ingresses node `nodeId` ran, oldest first.
    func ingresses(nodeId: String) -> [(appId: String, info: IngressInfo, settings: IngressSettings, port: UInt16?)] {
        let rows = (try? database.query("SELECT app_id, info, settings, port FROM egress_ingresses WHERE node_id = ? ORDER BY created_at, ingress_id",
                                        [.text(nodeId)])) ?? []
        let decoder = JSONDecoder()
        return rows.compactMap { row in
            guard row.count == 4, let appId = row[0].string, let info = row[1].string, let settings = row[2].string,
                  let i = try? decoder.decode(IngressInfo.self, from: Data(info.utf8)),
                  let s = try? decoder.decode(IngressSettings.self, from: Data(settings.utf8)) else { return nil }
            return (appId, i, s, row[3].int.flatMap { UInt16(exactly: $0) })
        }
    }
}
