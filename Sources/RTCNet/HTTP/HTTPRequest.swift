/// One parsed HTTP/1.1 request with its whole body (Content-Length bodies only).
public struct HTTPRequest: Sendable {
    /// The method token, as sent (methods are case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request target as sent: path and optional query (`/server/v1/channel/grant?x=1`).
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's address, when the request came over a socket.
    public var remoteAddress: SocketAddress?
    /// The version from the request line (decides keep-alive defaults, RFC 9112 §9.3).
    public var version: HTTPVersion

    public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], remoteAddress: SocketAddress? = nil, version: HTTPVersion = .http1_1) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.version = version
    }

    /// `true` when the client asked to keep the connection open after this request: HTTP/1.1
    /// unless `Connection: close`, HTTP/1.0 only with `Connection: keep-alive` (RFC 9112 §9.3).
    public var wantsKeepAlive: Bool {
        if version == .http1_1 { return !headers.contains("Connection", token: "close") }
        return headers.contains("Connection", token: "keep-alive")
    }

    /// The target without its query.
    public var path: Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? Substring(target)
    }

    /// The query after `?`, if any.
    public var query: Substring? {
        target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
    }

    /// Value of the first query parameter `name`, percent-decoded; `nil` when absent.
    public func queryParameter(_ name: String) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == name { return parts.count > 1 ? PercentDecoding.decode(parts[1]) : "" }
        }
        return nil
    }
}

/// Percent-decoding of query components (RFC 3986 §2.1), with `+` read as a space.
enum PercentDecoding {
    static func decode<S: StringProtocol>(_ text: S) -> String? {
        var out = [UInt8]()
        var it = Array(text.utf8)[...]
        while let c = it.popFirst() {
            if c == UInt8(ascii: "%") {
                guard it.count >= 2, let h = hex(it.removeFirst()), let l = hex(it.removeFirst()) else { return nil }
                out.append(h << 4 | l)
            } else if c == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(c)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
