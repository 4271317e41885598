extension HTTPResponse {
    /// `true` for statuses that never carry a body (RFC 9110 §6.4.1).
    static func forbidsBody(_ status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    /// Appends the wire form to `out`. The server owns framing: any `Content-Length`,
    /// `Transfer-Encoding` or `Connection` field of the response is replaced.
    /// - Parameters:
    ///   - keepAlive: whether the connection stays open afterwards.
    ///   - headOnly: the request was HEAD: send the length, not the body.
    ///   - connectionToken: the `Connection` value to send; `nil` derives it from `keepAlive`.
    func serialize(into out: inout [UInt8], keepAlive: Bool, headOnly: Bool = false, connectionToken: String? = nil) {
        out.reserveCapacity(out.count + 160 + headers.count * 32 + body.count)
        out.append(contentsOf: "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(status))\r\n".utf8)
        for (name, value) in headers {
            if HTTPHeaders.equalsIgnoringCase(name, "Content-Length")
                || HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding")
                || HTTPHeaders.equalsIgnoringCase(name, "Connection") { continue }
            out.append(contentsOf: name.utf8)
            out.append(0x3A)
            out.append(0x20)
            out.append(contentsOf: value.utf8)
            out.append(0x0D)
            out.append(0x0A)
        }
        let noBody = Self.forbidsBody(status)
        if !noBody {
            out.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8)
        }
        if let connectionToken {
            out.append(contentsOf: "Connection: \(connectionToken)\r\n".utf8)
        } else if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(0x0D)
        out.append(0x0A)
        if !noBody && !headOnly { out.append(contentsOf: body) }
    }
}
