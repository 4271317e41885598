import SRTCServer

// Live captions' transcript: each final caption is written when it arrives (one statement, its
// own transaction), so what was stored survives the server's death.
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
}
