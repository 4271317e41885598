import Synchronization

/// The live meeting sessions by id, so a new socket can resume one within its grace period.
final class MeetingSessions: Sendable {
    private let sessions = Mutex<[String: MeetingSession]>([:])

    func add(_ session: MeetingSession) {
        sessions.withLock { $0[session.id] = session }
    }

    func find(_ id: String) -> MeetingSession? {
        sessions.withLock { $0[id] }
    }

    func forget(_ session: MeetingSession) {
        sessions.withLock { if $0[session.id] === session { $0[session.id] = nil } }
    }

    var all: [MeetingSession] { sessions.withLock { Array($0.values) } }
}
