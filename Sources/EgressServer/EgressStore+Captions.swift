import EgressProtocol
import Foundation
import SRTCServer

// Live captions' transcript: each final caption is written when it arrives (one statement, its
// own transaction), so what was stored survives the server's death; and the runs in progress,
// so that a node that died resumes them.
extension EgressStore {
    /// Stores one final caption, `seq` in its run's order.
    func insertCaption(_ entry: CaptionEntry, seq: Int, appId: String, channel: String) {
        _ = try? database.query("""
            INSERT INTO egress_captions (captions_id, seq, app_id, channel, uid, start_ms, end_ms, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(entry.captionsId), .integer(Int64(seq)), .text(appId), .text(channel), .text(entry.uid),
                  .integer(entry.startMs), .integer(entry.endMs), .text(entry.text)])
    }

    /// The stored transcript of a channel, oldest first (by start time, then arrival).
    func captions(appId: String, channel: String, captionsId: String?, sinceMs: Int64?, limit: Int) -> [CaptionEntry] {
        var sql = "SELECT captions_id, uid, start_ms, end_ms, text FROM egress_captions WHERE app_id = ? AND channel = ?"
        var parameters: [SQLValue] = [.text(appId), .text(channel)]
        if let captionsId { sql += " AND captions_id = ?"; parameters.append(.text(captionsId)) }
        if let sinceMs { sql += " AND start_ms >= ?"; parameters.append(.integer(sinceMs)) }
        sql += " ORDER BY start_ms, captions_id, seq LIMIT ?"
        parameters.append(.integer(Int64(limit)))
        return ((try? database.query(sql, parameters)) ?? []).compactMap { row in
            guard row.count == 5, let id = row[0].string, let uid = row[1].string, let start = row[2].int, let end = row[3].int,
                  let text = row[4].string else { return nil }
            return CaptionEntry(captionsId: id, uid: uid, startMs: start, endMs: end, text: text)
        }
    }

    /// The `seq` the next final of run `captionsId` takes: one past the last one stored.
    func nextCaptionSeq(captionsId: String) -> Int {
        let rows = (try? database.query("SELECT MAX(seq) FROM egress_captions WHERE captions_id = ?", [.text(captionsId)])) ?? []
        return rows.first?.first?.int.map { Int($0) + 1 } ?? 0
    }

    // MARK: - Runs in progress

    /// Stores a run of captions (its info and worker settings) while it runs, for node `nodeId`.
    func saveCaptionRun(_ info: CaptionsInfo, appId: String, nodeId: String, settings: CaptionSettings) {
        let encoder = JSONEncoder()
        guard let infoJSON = try? encoder.encode(info), let settingsJSON = try? encoder.encode(settings) else { return }
        _ = try? database.query("""
            INSERT INTO egress_caption_runs (captions_id, app_id, node_id, channel, info, settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (captions_id) DO UPDATE SET info = excluded.info
            """, [.text(info.captionsId), .text(appId), .text(nodeId), .text(info.channel), .text(String(decoding: infoJSON, as: UTF8.self)),
                  .text(String(decoding: settingsJSON, as: UTF8.self)), .integer(info.startedAt)])
    }

    func deleteCaptionRun(id: String) {
        _ = try? database.query("DELETE FROM egress_caption_runs WHERE captions_id = ?", [.text(id)])
    }

    /// The runs of captions node `nodeId` left running, oldest first.
    func captionRuns(nodeId: String) -> [(appId: String, info: CaptionsInfo, settings: CaptionSettings)] {
        let rows = (try? database.query("SELECT app_id, info, settings FROM egress_caption_runs WHERE node_id = ? ORDER BY created_at, captions_id",
                                        [.text(nodeId)])) ?? []
        let decoder = JSONDecoder()
        return rows.compactMap { row in
            guard row.count == 3, let appId = row[0].string, let info = row[1].string, let settings = row[2].string,
                  let i = try? decoder.decode(CaptionsInfo.self, from: Data(info.utf8)),
                  let s = try? decoder.decode(CaptionSettings.self, from: Data(settings.utf8)) else { return nil }
            return (appId, i, s)
        }
    }
}
