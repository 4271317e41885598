/// One Redis reply (RESP2, the protocol of Redis 7's default connection): what hiredis parsed.
public enum RedisValue: Sendable, Equatable {
    case null
    case integer(Int64)
    /// A bulk string (UTF-8 text in everything we store).
    case string(String)
    /// A simple status such as `OK`.
    case status(String)
    case array([RedisValue])

    /// The text of a bulk string or status, else `nil`.
    public var text: String? {
        switch self {
        case .string(let s), .status(let s): return s
        default: return nil
        }
    }

    public var int: Int64? { if case .integer(let v) = self { return v }; return nil }
}

/// Errors of the Redis connection (`--redis-url`).
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not `redis://[:password@]host[:port][/db]`.
    case invalidURL(String)
    /// Redis cannot be reached, or the connection broke (hiredis's message).
    case connection(String)
    /// Redis answered with an error reply (`ERR …`, `WRONGTYPE …`).
    case server(String)

    public var description: String {
        switch self {
        case .invalidURL(let why): return "invalid redis URL: \(why)"
        case .connection(let message): return "redis connection failed: \(message)"
        case .server(let message): return "redis error: \(message)"
        }
    }
}
