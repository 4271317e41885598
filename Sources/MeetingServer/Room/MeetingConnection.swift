import SMeetingProtocol

/// One member's meeting session, as a live room sees it: where its events go. Implementations
/// are thread-safe and never block (`send` queues; `MeetingSession` numbers and keeps events
/// for a resume).
protocol MeetingConnection: AnyObject, Sendable {
    /// Queues one encoded event.
    func send(text: String)
    /// The room removed this member (kicked, ended, replaced by a newer session, sent away from
    /// the waiting room).
    func removed(from room: MeetingRoom)
}

extension MeetingConnection {
    func send<T: Encodable>(_ type: MeetingEventType, _ data: T) {
        send(text: MeetingCodec.event(type, data))
    }
}
