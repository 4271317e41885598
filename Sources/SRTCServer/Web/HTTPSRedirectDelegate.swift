import RTCNet

/// The plain-HTTP listener of `--http-redirect-port`: every request, WebSocket upgrades included,
/// gets `308 Permanent Redirect` to the same target on the HTTPS port. 308 (RFC 9110 §15.4.9),
/// unlike 301, keeps the method and body, so a signed `POST` sent to `http://` is not turned
/// into a `GET`.
struct HTTPSRedirectDelegate: HTTPServerDelegate {
    /// The port that serves HTTPS.
    let httpsPort: UInt16

    func respondImmediately(to request: HTTPRequest) -> HTTPResponse? { redirect(request) }

    func respond(to request: HTTPRequest) async -> HTTPResponse { redirect(request) }

    func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision { .reject(redirect(request)) }

    /// 308 to `https://<host>:<httpsPort><target>`, or 400 without a usable `Host`.
    func redirect(_ request: HTTPRequest) -> HTTPResponse {
        guard let host = request.headers["Host"].flatMap(Self.hostWithoutPort) else {
            return .text(400, "a Host header is needed to redirect to https\n")
        }
        // A request target is a path (origin-form); anything else would make an odd URL.
        let target = request.target.hasPrefix("/") ? request.target : "/"
        let authority = httpsPort == 443 ? host : "\(host):\(httpsPort)"
        let location = "https://\(authority)\(target)"
        return HTTPResponse(status: 308, headers: ["Location": location, "Content-Type": "text/plain; charset=utf-8"],
                            body: Array("use \(location)\n".utf8))
    }

    /// `Host`'s name or address without its port (`[::1]:80` → `[::1]`), or nil when it holds
    /// anything but the characters of a host name or an address: the value is echoed in `Location`.
    static func hostWithoutPort(_ value: String) -> String? {
        var host = Substring(value)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            host = host[...close]
            let inside = host.dropFirst().dropLast()
            return !inside.isEmpty && inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) ? String(host) : nil
        }
        if let colon = host.firstIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            host = host[..<colon]
        }
        let allowed = !host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        return allowed ? String(host) : nil
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
