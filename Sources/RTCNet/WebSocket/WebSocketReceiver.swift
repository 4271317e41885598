/// Turns frames into what the application sees (RFC 6455 §5.4–5.5): joins fragments, checks
/// that text is UTF-8, and decodes Close frames. Pure: tested without sockets.
public struct WebSocketReceiver: Sendable {
    /// What one step of reading produced.
    public enum Event: Sendable, Equatable {
        case message(WebSocketMessage)
        case ping([UInt8])
        case pong([UInt8])
        /// The peer's Close frame: its code (`nil` when it had none) and reason.
        case close(WebSocketCloseCode?, String)
    }

    private let parser: WebSocketFrameParser
    /// Largest joined message accepted (1009 past it).
    public let maxMessageSize: Int
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: WebSocketOpcode?

    /// A fragmented message has begun and not yet ended (its fragments are buffered).
    public var isAssemblingMessage: Bool { fragmentedOpcode != nil }

    /// - Parameters:
    ///   - expectsMaskedFrames: `true` on the server side.
    ///   - maxMessageSize: limit of a joined message (1009 past it).
    public init(expectsMaskedFrames: Bool, maxMessageSize: Int) {
        parser = WebSocketFrameParser(expectsMaskedFrames: expectsMaskedFrames, maxPayloadSize: max(maxMessageSize, 125))
        self.maxMessageSize = maxMessageSize
    }

    /// The next event from `buffer`, or `nil` when more bytes are needed.
    public mutating func next(from buffer: inout ByteBuffer) throws(WebSocketError) -> Event? {
        while let frame = try parser.next(from: &buffer) {
            if let event = try receive(frame) { return event }
        }
        return nil
    }

    /// Feeds one frame; returns an event when it completes one.
    public mutating func receive(_ frame: WebSocketFrame) throws(WebSocketError) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.decodeClose(frame.payload)
        case .text, .binary:
            guard fragmentedOpcode == nil else { throw .protocolViolation("new message inside a fragmented one") }
            guard frame.payload.count <= maxMessageSize else { throw .messageTooBig(limit: maxMessageSize) }
            if frame.fin { return .message(try Self.message(frame.opcode, frame.payload)) }
            fragmentedOpcode = frame.opcode
            fragments = frame.payload
            return nil
        case .continuation:
            guard let opcode = fragmentedOpcode else { throw .protocolViolation("continuation without a message") }
            guard frame.payload.count <= maxMessageSize - fragments.count else { throw .messageTooBig(limit: maxMessageSize) }
            fragments.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            let whole = fragments
            fragments = []
            fragmentedOpcode = nil
            return .message(try Self.message(opcode, whole))
        }
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketError) -> WebSocketMessage {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else { throw .invalidUTF8 }
        return .text(text)
    }

    /// A Close body is empty or a 2-byte code plus a UTF-8 reason (§5.5.1, §7.4).
    static func decodeClose(_ payload: [UInt8]) throws(WebSocketError) -> Event {
        if payload.isEmpty { return .close(nil, "") }
        guard payload.count >= 2 else { throw .protocolViolation("close frame with a 1-byte body") }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isAllowedOnWire else { throw .protocolViolation("close code \(code.rawValue) not allowed") }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidUTF8 }
        return .close(code, reason)
    }
}
