/// A complete WebSocket data message (fragments already joined).
public enum WebSocketMessage: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
}

/// Frame opcodes (RFC 6455 §5.2, §11.8).
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes and never fragmented (§5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Settings of one WebSocket connection.
public struct WebSocketConfiguration: Sendable {
    /// Largest message accepted (after joining fragments); past it the connection closes with 1009.
    public var maxMessageSize: Int
    /// How long to wait for the peer's Close frame (or, for a client, the server's TCP close) after ours.
    public var closeTimeout: Duration
    /// Send a ping this often and close (1006) when no frame at all arrived in two intervals; `nil` disables.
    public var pingInterval: Duration?
    /// Most bytes queued for a slow peer before the connection is dropped.
    public var maxBufferedBytes: Int
    /// How long queued bytes may make no progress before the connection is dropped.
    public var writeTimeout: Duration
    /// How long a fragmented message may take from its first fragment to its last; past it the
    /// connection closes with 1008. Pings and pongs in between do not extend it.
    public var messageTimeout: Duration

    /// - Parameters: see the properties of the same names.
    public init(maxMessageSize: Int = 1 << 20, closeTimeout: Duration = .seconds(5), pingInterval: Duration? = nil, maxBufferedBytes: Int = 16 << 20,
                writeTimeout: Duration = .seconds(30), messageTimeout: Duration = .seconds(10)) {
        self.messageTimeout = messageTimeout
        self.maxMessageSize = maxMessageSize
        self.closeTimeout = closeTimeout
        self.pingInterval = pingInterval
        self.maxBufferedBytes = maxBufferedBytes
        self.writeTimeout = writeTimeout
    }
}
