/// Turns the server URL an app passes to `join(url:token:)` into the signaling WebSocket URL.
///
/// | given | used |
/// | --- | --- |
/// | `http://host:7880` | `ws://host:7880/rtc/v1/ws` |
/// | `https://rtc.example.com` | `wss://rtc.example.com/rtc/v1/ws` |
/// | `ws://host:7880` | `ws://host:7880/rtc/v1/ws` |
/// | `wss://host/custom/path` | unchanged (a path given with a WebSocket scheme is kept) |
///
/// A trailing slash is ignored; a query on an http(s) URL is kept after the path. The IM
/// WebSocket (`/im/v1/ws`) is derived the same way with its own path.
package enum SignalURL {
    /// The signaling path of protocol version 1 (docs/protocol.md).
    package static let path = "/rtc/v1/ws"

    package static func webSocketURL(for url: String, path endpoint: String = SignalURL.path) throws(SRTCError) -> String {
        let trimmed = url.trimmingWhitespace
        guard let schemeEnd = trimmed.range(of: "://") else { throw .invalidURL(url) }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        var rest = Substring(trimmed[schemeEnd.upperBound...])
        var query = ""
        if let q = rest.firstIndex(of: "?") {
            query = String(rest[q...])
            rest = rest[..<q]
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        while path.hasSuffix("/") { path.removeLast() }
        guard !authority.isEmpty, !authority.contains(" ") else { throw .invalidURL(url) }
        let wsScheme: String
        switch scheme {
        case "http", "ws": wsScheme = "ws"
        case "https", "wss": wsScheme = "wss"
        default: throw .invalidURL(url)
        }
        let keepPath = (scheme == "ws" || scheme == "wss") && !path.isEmpty
        return wsScheme + "://" + authority + (keepPath ? path : path + endpoint) + query
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
