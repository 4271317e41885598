/// The sending side of one member's meeting WebSocket, as a live room sees it. Implementations
/// are thread-safe and never block (`send` queues).
protocol MeetingConnection: AnyObject, Sendable {
    /// Queues one text message.
    func send(text: String)
    /// The room removed this member (kicked, ended, replaced by a newer session).
    func removed(from room: MeetingRoom)
}

extension MeetingConnection {
    func send<T: Encodable>(_ type: SMeetingProtocol.MeetingEventType, _ data: T) {
        send(text: MeetingCodec.event(type, data))
    }
}

import SMeetingProtocol
