import RTCCrypto

/// The HTTP side of the opening handshake (RFC 6455 §4).
enum WebSocketHandshake {
    /// The GUID appended to the key before hashing (§1.3).
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)) (§4.2.2).
    static func acceptValue(forKey key: String) -> String {
        Encoding.base64(Digest.sha1(Array((key + guid).utf8)))
    }

    /// A fresh client key: 16 random bytes, base64 (§4.1).
    static func makeKey() -> String {
        Encoding.base64(SecureRandom.bytes(16))
    }

    /// What the server makes of a request.
    enum RequestCheck {
        /// Not an upgrade attempt: a plain HTTP request.
        case notUpgrade
        /// An upgrade attempt that breaks §4.2.1; answer with this response.
        case invalid(HTTPResponse)
        /// A valid opening handshake with this key.
        case valid(key: String)
    }

    /// Checks a client's opening handshake (§4.2.1).
    static func check(_ request: HTTPRequest) -> RequestCheck {
        guard request.headers.contains("Upgrade", token: "websocket") else { return .notUpgrade }
        guard request.method == "GET", request.version == .http1_1 else {
            return .invalid(.text(400, "WebSocket handshake must be an HTTP/1.1 GET\n"))
        }
        guard request.headers.contains("Connection", token: "upgrade") else {
            return .invalid(.text(400, "WebSocket handshake without Connection: Upgrade\n"))
        }
        guard request.headers.values("Sec-WebSocket-Version").count == 1, request.headers["Sec-WebSocket-Version"]?.trimmingSpaces == "13" else {
            // §4.4: tell the client which version we speak.
            return .invalid(HTTPResponse(status: 426, headers: ["Sec-WebSocket-Version": "13"], body: Array("unsupported WebSocket version\n".utf8)))
        }
        guard request.headers.values("Sec-WebSocket-Key").count == 1, let key = request.headers["Sec-WebSocket-Key"].map({ String($0.trimmingSpaces) }),
              Encoding.fromBase64(key)?.count == 16 else {
            return .invalid(.text(400, "Sec-WebSocket-Key must be 16 bytes in base64\n"))
        }
        return .valid(key: key)
    }

    /// The 101 response accepting `key`.
    static func acceptResponse(key: String, subprotocol: String?, extraHeaders: HTTPHeaders) -> [UInt8] {
        var text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(acceptValue(forKey: key))\r\n"
        if let subprotocol { text += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        for (name, value) in extraHeaders { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}
