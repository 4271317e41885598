/// An incremental HTTP/1.1 request parser (RFC 9112): feed it a buffer as bytes arrive and it returns
/// each complete request, consuming exactly its bytes so pipelined requests stay in the buffer.
///
/// Bodies must be framed by `Content-Length`; chunked request bodies are refused (411) and other
/// transfer codings too (501). Limits bound memory: nothing is buffered past them.
public struct HTTPRequestParser: Sendable {
    /// Sizes past which a request is refused.
    public struct Limits: Sendable, Equatable {
        /// Longest request line (414 past it).
        public var maxRequestLineBytes: Int
        /// Largest head: request line plus header fields (431 past it).
        public var maxHeaderBytes: Int
        /// Most header fields (431 past it).
        public var maxHeaderCount: Int
        /// Largest body (413 past it).
        public var maxBodyBytes: Int

        /// - Parameters: see the properties of the same names.
        public init(maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 16384, maxHeaderCount: Int = 100, maxBodyBytes: Int = 1 << 20) {
            self.maxRequestLineBytes = maxRequestLineBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// Where the parser is within the current request.
    public enum Phase: Sendable, Equatable {
        /// Between requests; no byte of the next one has arrived.
        case idle
        /// Part of a head has arrived.
        case head
        /// The head is complete and `remaining` body bytes are awaited; `expectsContinue` when the
        /// client sent `Expect: 100-continue` (RFC 9110 §10.1.1).
        case body(remaining: Int, expectsContinue: Bool)
    }

    /// The limits given at creation.
    public let limits: Limits
    private var scanner = HTTPHeadScanner()
    private var pending: HTTPRequest?
    private var bodyLength = 0
    /// Progress within the current request (drives the server's read deadlines).
    public private(set) var phase: Phase = .idle

    /// A parser waiting for the first request.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Parses the next request out of `buffer`.
    /// - Returns: the request with its whole body, or `nil` when more bytes are needed.
    /// - Throws: `HTTPParserError` when the bytes are not an acceptable request; the parser must
    ///   not be used again afterwards (the connection is answered `error.status` and closed).
    public mutating func next(from buffer: inout ByteBuffer) throws(HTTPParserError) -> HTTPRequest? {
        if pending == nil {
            skipLeadingEmptyLines(&buffer)
            if buffer.isEmpty {
                phase = .idle
                return nil
            }
            phase = .head
            guard try parseHead(&buffer) else { return nil }
        }
        guard var request = pending else { return nil }
        let available = buffer.readableBytes
        if available < bodyLength {
            phase = .body(remaining: bodyLength - available, expectsContinue: Self.expectsContinue(request))
            return nil
        }
        if bodyLength > 0, let body = buffer.readBytes(bodyLength) { request.body = body }
        pending = nil
        scanner.reset()
        phase = buffer.isEmpty ? .idle : .head
        return request
    }

    // MARK: - Internals

    /// A server should ignore empty lines before a request line (RFC 9112 §2.2).
    private func skipLeadingEmptyLines(_ buffer: inout ByteBuffer) {
        var skip = 0
        while let c = buffer.byte(at: skip), c == 0x0D || c == 0x0A, skip < 8 { skip += 1 }
        if skip > 0 { buffer.moveReaderIndex(by: skip) }
    }

    /// Parses the head when complete; `false` when more bytes are needed.
    private mutating func parseHead(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> Bool {
        let limits = self.limits
        var scanner = self.scanner
        defer { self.scanner = scanner }
        let parsed = try buffer.withReadableBytes { bytes throws(HTTPParserError) -> (HTTPRequest, Int, Int)? in
            guard let end = scanner.findEnd(in: bytes) else {
                let firstLF = HTTPHeadScanner.indexOfLF(in: bytes, from: 0)
                if firstLF == nil, bytes.count > limits.maxRequestLineBytes { throw .requestLineTooLong }
                if bytes.count > limits.maxHeaderBytes { throw .headerSectionTooLarge }
                return nil
            }
            guard end <= limits.maxHeaderBytes else {
                if let lf = HTTPHeadScanner.indexOfLF(in: bytes, from: 0), lf > limits.maxRequestLineBytes { throw .requestLineTooLong }
                throw .headerSectionTooLarge
            }
            let head = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
            let lines = HTTPHeadScanner.lines(of: head)
            guard let requestLine = lines.first else { throw .malformedRequestLine }
            guard requestLine.count <= limits.maxRequestLineBytes else { throw .requestLineTooLong }
            var request = try Self.parseRequestLine(UnsafeRawBufferPointer(rebasing: head[requestLine]))
            request.headers = try HTTPHeadScanner.parseFields(head, lines: lines.dropFirst(), maxCount: limits.maxHeaderCount)
            let length = try Self.bodyLength(of: request, limit: limits.maxBodyBytes)
            return (request, end, length)
        }
        guard let (request, headLength, length) = parsed else { return false }
        buffer.moveReaderIndex(by: headLength)
        pending = request
        bodyLength = length
        return true
    }

    /// `method SP request-target SP HTTP-version` (RFC 9112 §3).
    static func parseRequestLine(_ line: UnsafeRawBufferPointer) throws(HTTPParserError) -> HTTPRequest {
        var spaces: [Int] = []
        for i in 0..<line.count where line[i] == 0x20 {
            spaces.append(i)
            if spaces.count > 2 { throw .malformedRequestLine }
        }
        guard spaces.count == 2, spaces[0] > 0, spaces[1] > spaces[0] + 1, spaces[1] < line.count - 1 else {
            throw .malformedRequestLine
        }
        let method = UnsafeRawBufferPointer(rebasing: line[0..<spaces[0]])
        let target = UnsafeRawBufferPointer(rebasing: line[(spaces[0] + 1)..<spaces[1]])
        let versionBytes = UnsafeRawBufferPointer(rebasing: line[(spaces[1] + 1)...])
        for c in method where !HTTPHeadScanner.isTokenByte(c) { throw .malformedRequestLine }
        // The target is visible ASCII (RFC 3986 characters); anything else is refused, not guessed at.
        for c in target where c <= 0x20 || c >= 0x7F { throw .malformedRequestLine }
        guard let version = HTTPHeadScanner.parseVersion(versionBytes) else { throw .malformedRequestLine }
        guard version == .http1_1 || version == .http1_0 else { throw .unsupportedVersion }
        return HTTPRequest(
            method: String(decoding: method, as: UTF8.self),
            target: String(decoding: target, as: UTF8.self),
            version: version
        )
    }

    /// Body framing (RFC 9112 §6): Transfer-Encoding is refused, Content-Length read, Host checked.
    static func bodyLength(of request: HTTPRequest, limit: Int) throws(HTTPParserError) -> Int {
        let codings = request.headers.values("Transfer-Encoding")
        if !codings.isEmpty {
            let last = codings.last?.split(separator: ",").last?.trimmingSpaces.lowercased()
            throw last == "chunked" ? .chunkedRequestBody : .unsupportedTransferEncoding
        }
        if request.version == .http1_1, request.headers.values("Host").count != 1 { throw .invalidHost }
        return try HTTPHeadScanner.contentLength(request.headers.values("Content-Length"), limit: limit) ?? 0
    }

    static func expectsContinue(_ request: HTTPRequest) -> Bool {
        request.version == .http1_1 && request.headers["Expect"].map { HTTPHeaders.equalsIgnoringCase($0, "100-continue") } == true
    }
}
