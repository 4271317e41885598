/// The parts of an `http`, `https`, `ws` or `wss` URL a client needs (RFC 3986 §3).
struct ParsedURL: Sendable, Equatable {
    /// Lowercased scheme.
    var scheme: String
    /// Host without IPv6 brackets.
    var host: String
    var port: UInt16
    /// Path and query, at least "/" (the request target, RFC 9112 §3.2.1).
    var target: String

    /// TLS schemes.
    var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// The `Host` field: the host (bracketed when IPv6) and the port unless it is the default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        let defaultPort: UInt16 = isSecure ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }

    /// - Parameter allowedSchemes: schemes the caller speaks.
    init(_ text: String, allowedSchemes: Set<String>) throws(NetError) {
        guard let schemeEnd = text.range(of: "://") else { throw .invalidURL(text) }
        scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard allowedSchemes.contains(scheme) else { throw .invalidURL(text) }
        var rest = text[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]
        target = path.isEmpty ? "/" : (path.first == "?" ? "/" + path : String(path))
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(text) }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidURL(text) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw .invalidURL(text) }
        let secure = scheme == "https" || scheme == "wss"
        if let portText {
            guard let value = UInt16(portText), value > 0 else { throw .invalidURL(text) }
            port = value
        } else {
            port = secure ? 443 : 80
        }
        for c in target.utf8 where c <= 0x20 || c >= 0x7F { throw .invalidURL(text) }
    }
}
