import Foundation
import SMeetingProtocol
import SRTCServer

/// Where a meeting session lives, so that a `login` naming it on any node of a cluster finds it
/// (docs/deploy.md, "How a session finds its channel"): Redis key
/// `srtc:record:meeting-session:<session id>`, written by the node that runs the session when it
/// starts there, deleted when it ends there (logout, grace period over), kept for a day. A node
/// that does not hold the session relays the `login` to the node named here; a session whose node
/// is gone (drained, dead) is answered `rejoin`.
struct MeetingSessionRecord: Codable, Sendable, Equatable {
    var appId: String
    var uid: String
    /// The node that runs the session (the node of the meeting it is in).
    var node: String
    /// Written by a node that hands the session to `node` (it relays the socket there to enter a
    /// meeting `node` runs): `node` takes the session over under the same id on the relayed
    /// `login`, numbering events from `nextSeq`.
    var handoff: Bool?
    var nextSeq: Int?

    static func key(_ sessionId: String) -> String { "meeting-session:\(sessionId)" }
}

extension MeetingService {
    /// Writes where `session` runs (this node), without waiting. Nothing on a single node.
    func recordSession(_ session: MeetingSession) {
        guard let cluster, let json = try? JSONEncoder().encode(MeetingSessionRecord(appId: session.appId, uid: session.uid, node: cluster.nodeId))
        else { return }
        cluster.save(record: json, key: MeetingSessionRecord.key(session.id))
    }

    /// The session ended on this node: a later `login` naming it starts a new session.
    func forgetSessionRecord(_ sessionId: String) {
        cluster?.save(record: nil, key: MeetingSessionRecord.key(sessionId))
    }

    /// The record of session `id`, if it is `appId`'s member `uid`'s.
    func sessionRecord(_ id: String, appId: String, uid: String) async -> MeetingSessionRecord? {
        guard let cluster, let json = await cluster.record(key: MeetingSessionRecord.key(id)),
              let record = try? JSONDecoder().decode(MeetingSessionRecord.self, from: json),
              record.appId == appId, record.uid == uid else { return nil }
        return record
    }

    /// Hands session `id` to `node` before relaying its socket there; returns once Redis has it.
    func handOffSession(_ id: String, appId: String, uid: String, to node: String, nextSeq: Int) async throws {
        guard let cluster else { return }
        let record = MeetingSessionRecord(appId: appId, uid: uid, node: node, handoff: true, nextSeq: nextSeq)
        try await cluster.store(record: try JSONEncoder().encode(record), key: MeetingSessionRecord.key(id))
    }
}
