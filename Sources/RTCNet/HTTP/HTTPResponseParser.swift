/// An incremental HTTP/1.1 response parser for the client (RFC 9112 §4, §6–7): status line,
/// header fields, and a body framed by `Content-Length`, the chunked coding, or the end of the
/// connection. Interim 1xx responses other than 101 are skipped.
public struct HTTPResponseParser: Sendable {
    /// Sizes past which a response is refused.
    public struct Limits: Sendable, Equatable {
        /// Largest head (status line plus fields), and largest trailer section.
        public var maxHeaderBytes: Int
        /// Most header fields.
        public var maxHeaderCount: Int
        /// Largest body, however it is framed.
        public var maxBodyBytes: Int

        /// - Parameters: see the properties of the same names.
        public init(maxHeaderBytes: Int = 64 * 1024, maxHeaderCount: Int = 256, maxBodyBytes: Int = 64 << 20) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
        }
    }

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
    }

    /// The limits given at creation.
    public let limits: Limits
    /// Responses to HEAD never have a body (RFC 9110 §9.3.2).
    public var requestMethod: String
    private var scanner = HTTPHeadScanner()
    private var state = State.head
    private var response: HTTPResponse?
    private var version = HTTPVersion.http1_1
    private var trailerBytes = 0
    /// After a complete response: whether the connection may carry another request.
    public private(set) var connectionReusable = false

    /// - Parameters:
    ///   - requestMethod: method of the request this response answers.
    ///   - limits: size limits.
    public init(requestMethod: String = "GET", limits: Limits = Limits()) {
        self.requestMethod = requestMethod
        self.limits = limits
    }

    /// The next complete response from `buffer`, or `nil` when more bytes are needed.
    public mutating func next(from buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPResponse? {
        while true {
            switch state {
            case .head:
                guard try parseHead(&buffer) else { return nil }
                if let done = finishIfComplete() { return done }
            case .fixed(let remaining):
                let take = min(remaining, buffer.readableBytes)
                appendBody(&buffer, take)
                if remaining - take > 0 {
                    state = .fixed(remaining: remaining - take)
                    return nil
                }
                return complete(reusable: true)
            case .chunkSize:
                guard let line = try readLine(&buffer, limit: 4096) else { return nil }
                let size = try Self.chunkSize(line)
                guard size <= limits.maxBodyBytes - (response?.body.count ?? 0) else { throw .bodyTooLarge }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let take = min(remaining, buffer.readableBytes)
                appendBody(&buffer, take)
                if remaining - take > 0 {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard let line = try readLine(&buffer, limit: 2) else { return nil }
                guard line.isEmpty else { throw .malformedChunk }
                state = .chunkSize
            case .trailers:
                guard let line = try readLine(&buffer, limit: limits.maxHeaderBytes) else { return nil }
                trailerBytes += line.count + 2
                guard trailerBytes <= limits.maxHeaderBytes else { throw .headerSectionTooLarge }
                if line.isEmpty { return complete(reusable: true) }
            case .untilClose:
                let count = buffer.readableBytes
                guard count <= limits.maxBodyBytes - (response?.body.count ?? 0) else { throw .bodyTooLarge }
                appendBody(&buffer, count)
                return nil
            }
        }
    }

    /// The peer closed the connection: completes a body delimited by the close, or `nil` when a
    /// response was cut short.
    public mutating func finish() -> HTTPResponse? {
        guard case .untilClose = state else { return nil }
        return complete(reusable: false)
    }

    // MARK: - Internals

    private mutating func parseHead(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> Bool {
        let limits = self.limits
        var scanner = self.scanner
        defer { self.scanner = scanner }
        let parsed = try buffer.withReadableBytes { bytes throws(HTTPParserError) -> (HTTPResponse, HTTPVersion, Int)? in
            guard let end = scanner.findEnd(in: bytes) else {
                if bytes.count > limits.maxHeaderBytes { throw .headerSectionTooLarge }
                return nil
            }
            guard end <= limits.maxHeaderBytes else { throw .headerSectionTooLarge }
            let head = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
            let lines = HTTPHeadScanner.lines(of: head)
            guard let statusLine = lines.first else { throw .malformedStatusLine }
            let (status, version) = try Self.parseStatusLine(UnsafeRawBufferPointer(rebasing: head[statusLine]))
            let headers = try HTTPHeadScanner.parseFields(head, lines: lines.dropFirst(), maxCount: limits.maxHeaderCount)
            return (HTTPResponse(status: status, headers: headers), version, end)
        }
        guard let (head, version, length) = parsed else { return false }
        buffer.moveReaderIndex(by: length)
        scanner.reset()
        // Interim responses (100 Continue, 103 Early Hints) precede the real one (RFC 9110 §15.2).
        if (100..<200).contains(head.status), head.status != 101 { return try parseHead(&buffer) }
        response = head
        self.version = version
        try chooseFraming(head)
        return true
    }

    /// Body framing of a response (RFC 9112 §6.3).
    private mutating func chooseFraming(_ head: HTTPResponse) throws(HTTPParserError) {
        if requestMethod == "HEAD" || HTTPResponse.forbidsBody(head.status) {
            state = .fixed(remaining: 0)
            return
        }
        let codings = head.headers.values("Transfer-Encoding")
        if !codings.isEmpty {
            let last = codings.last?.split(separator: ",").last?.trimmingSpaces.lowercased()
            state = last == "chunked" ? .chunkSize : .untilClose
            return
        }
        if let length = try HTTPHeadScanner.contentLength(head.headers.values("Content-Length"), limit: limits.maxBodyBytes) {
            state = .fixed(remaining: length)
        } else {
            state = .untilClose
        }
    }

    private mutating func finishIfComplete() -> HTTPResponse? {
        if case .fixed(0) = state { return complete(reusable: true) }
        return nil
    }

    private mutating func complete(reusable: Bool) -> HTTPResponse? {
        guard let done = response else { return nil }
        let closeRequested = done.headers.contains("Connection", token: "close")
        connectionReusable = reusable && !closeRequested && done.status != 101
            && (version == .http1_1 || done.headers.contains("Connection", token: "keep-alive"))
        response = nil
        state = .head
        trailerBytes = 0
        return done
    }

    private mutating func appendBody(_ buffer: inout ByteBuffer, _ count: Int) {
        guard count > 0 else { return }
        buffer.withReadableBytes { response?.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        buffer.moveReaderIndex(by: count)
    }

    /// One CRLF- (or LF-) terminated line, without its terminator; `nil` when incomplete.
    private func readLine(_ buffer: inout ByteBuffer, limit: Int) throws(HTTPParserError) -> [UInt8]? {
        let found = buffer.withReadableBytes { HTTPHeadScanner.indexOfLF(in: $0, from: 0) }
        guard let lf = found else {
            if buffer.readableBytes > limit + 1 { throw .malformedChunk }
            return nil
        }
        guard lf <= limit + 1, var line = buffer.readBytes(lf + 1) else { throw .malformedChunk }
        line.removeLast()
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1): hex digits, extensions ignored.
    static func chunkSize(_ line: [UInt8]) throws(HTTPParserError) -> Int {
        var size = 0
        var digits = 0
        for c in line {
            let v: Int
            switch c {
            case 0x30...0x39: v = Int(c - 0x30)
            case 0x41...0x46: v = Int(c - 0x37)
            case 0x61...0x66: v = Int(c - 0x57)
            case 0x3B, 0x20, 0x09:
                guard digits > 0 else { throw .malformedChunk }
                return size
            default: throw .malformedChunk
            }
            digits += 1
            guard digits <= 15 else { throw .bodyTooLarge }
            size = size << 4 | v
        }
        guard digits > 0 else { throw .malformedChunk }
        return size
    }

    /// `HTTP-version SP 3DIGIT SP [ reason-phrase ]` (RFC 9112 §4).
    static func parseStatusLine(_ line: UnsafeRawBufferPointer) throws(HTTPParserError) -> (Int, HTTPVersion) {
        guard line.count >= 12, line[8] == 0x20,
              let version = HTTPHeadScanner.parseVersion(UnsafeRawBufferPointer(rebasing: line[0..<8])), version.major == 1 else {
            throw .malformedStatusLine
        }
        var status = 0
        for i in 9..<12 {
            guard (0x30...0x39).contains(line[i]) else { throw .malformedStatusLine }
            status = status * 10 + Int(line[i] - 0x30)
        }
        guard status >= 100, line.count == 12 || line[12] == 0x20 else { throw .malformedStatusLine }
        return (status, version)
    }
}
