import SRTCProtocol

/// The sending side of one client's signaling WebSocket, as the channel layer sees it.
/// Implementations are thread-safe; `send` never blocks (it queues).
public protocol SignalConnection: AnyObject, Sendable {
    /// Queues one text message.
    func send(text: String)
    /// Sends a close frame with `code` and closes.
    func close(code: UInt16, reason: String)
    /// The cluster node that relays this connection from its client (docs/deploy.md, "Channels
    /// larger than a node"); `nil` for a client connected here.
    var relayingNode: String? { get }
    /// A session with no socket of its own (WHIP, WHEP: docs/ingress.md) ends when its media
    /// transport fails, its only sign of life.
    var endsWhenMediaFails: Bool { get }
}

extension SignalConnection {
    public var relayingNode: String? { nil }
    public var endsWhenMediaFails: Bool { false }

    /// Encodes and queues a server message.
    func send(_ message: ServerMessage) {
        send(text: SignalCodec.encode(message))
    }

    /// Queues an event.
    func send(event: ServerEvent) {
        send(.event(event))
    }
}
