import Testing
@testable import RTCNet
import TestRandom

@Suite struct HTTPRequestParserTests {
    private func parse(_ text: String, limits: HTTPRequestParser.Limits = .init()) throws(HTTPParserError) -> (HTTPRequest?, ByteBuffer) {
        var parser = HTTPRequestParser(limits: limits)
        var buffer = ByteBuffer(Array(text.utf8))
        let request = try parser.next(from: &buffer)
        return (request, buffer)
    }

    private func parseError(_ text: String, limits: HTTPRequestParser.Limits = .init()) -> HTTPParserError? {
        do { _ = try parse(text, limits: limits); return nil } catch { return error }
    }

    @Test func parsesRequestLineHeadersAndConsumesExactlyTheHead() throws {
        let (request, rest) = try parse("GET /server/v1/x?a=1&b=%20c HTTP/1.1\r\nHost: example.com\r\nX-Multi:  one \r\nx-multi: two\r\n\r\nNEXT")
        let r = try #require(request)
        #expect(r.method == "GET")
        #expect(r.target == "/server/v1/x?a=1&b=%20c")
        #expect(r.path == "/server/v1/x")
        #expect(r.queryParameter("b") == " c")
        #expect(r.version == .http1_1)
        #expect(r.headers["host"] == "example.com")
        #expect(r.headers.values("X-MULTI") == ["one", "two"])  // OWS trimmed, order kept
        #expect(r.body.isEmpty)
        #expect(rest.readableArray == Array("NEXT".utf8))
    }

    @Test func bodySplitByteByByteArrivesWhole() throws {
        let wire = Array("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello".utf8)
        var parser = HTTPRequestParser()
        var buffer = ByteBuffer()
        var result: HTTPRequest?
        for (i, byte) in wire.enumerated() {
            buffer.append(byte)
            result = try parser.next(from: &buffer)
            if i < wire.count - 1 { #expect(result == nil, "complete too early at byte \(i)") }
        }
        #expect(result?.body == Array("hello".utf8))
        #expect(parser.phase == .idle)
    }

    @Test func pipelinedRequestsComeOutInOrder() throws {
        var parser = HTTPRequestParser()
        var buffer = ByteBuffer(Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhiGET /c HTTP/1.0\r\n\r\n".utf8))
        let a = try #require(try parser.next(from: &buffer))
        let b = try #require(try parser.next(from: &buffer))
        let c = try #require(try parser.next(from: &buffer))
        #expect([a.target, b.target, c.target] == ["/a", "/b", "/c"])
        #expect(b.body == [0x68, 0x69])
        #expect(c.version == .http1_0)  // HTTP/1.0 needs no Host
        #expect(try parser.next(from: &buffer) == nil)
    }

    @Test func bareLineFeedsAndLeadingEmptyLinesAreAccepted() throws {
        let (request, _) = try parse("\r\nGET / HTTP/1.1\nHost: h\n\n")
        #expect(request?.headers["Host"] == "h")
    }

    @Test func keepAliveFollowsVersionAndConnectionHeader() throws {
        #expect(try parse("GET / HTTP/1.1\r\nHost: h\r\n\r\n").0?.wantsKeepAlive == true)
        #expect(try parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n").0?.wantsKeepAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\n\r\n").0?.wantsKeepAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").0?.wantsKeepAlive == true)
    }

    @Test func lyingContentLengthWaitsForTheMissingBytes() throws {
        var parser = HTTPRequestParser()
        var buffer = ByteBuffer(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n0123456789".utf8))
        #expect(try parser.next(from: &buffer) == nil)
        #expect(parser.phase == .body(remaining: 90, expectsContinue: true))
    }

    static let rejections: [(String, HTTPParserError)] = [
        ("hello\r\n\r\n", .malformedRequestLine),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .malformedRequestLine),           // two spaces
        ("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", .malformedRequestLine),           // trailing space
        ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", .malformedRequestLine),            // '(' is not a tchar
        ("GET /\u{7f} HTTP/1.1\r\nHost: h\r\n\r\n", .malformedRequestLine),      // DEL in target
        ("GET / HTTX/1.1\r\nHost: h\r\n\r\n", .malformedRequestLine),
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/0.9\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/1.1\r\n\r\n", .invalidHost),                                // no Host
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", .malformedHeader),                // space before colon
        ("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", .malformedHeader),      // obs-fold
        ("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", .malformedHeader),           // bare CR
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", .malformedHeader),
        ("GET / HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n", .malformedHeader),          // empty name
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", .malformedHeader),   // NUL in value
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999999\r\n\r\n", .bodyTooLarge),  // overflows Int
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n", .bodyTooLarge),  // limit + 1
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", .chunkedRequestBody),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\n", .unsupportedTransferEncoding),
    ]

    @Test(arguments: rejections)
    func malformedRequestsAreRejectedWithTheirStatus(_ text: String, _ expected: HTTPParserError) {
        #expect(parseError(text) == expected)
    }

    @Test func statusCodesOfRejections() {
        #expect(HTTPParserError.bodyTooLarge.status == 413)
        #expect(HTTPParserError.headerSectionTooLarge.status == 431)
        #expect(HTTPParserError.tooManyHeaderFields.status == 431)
        #expect(HTTPParserError.unsupportedVersion.status == 505)
        #expect(HTTPParserError.chunkedRequestBody.status == 411)
        #expect(HTTPParserError.malformedRequestLine.status == 400)
    }

    @Test func duplicateEqualContentLengthsAreOneLength() throws {
        let (request, _) = try parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok")
        #expect(request?.body == Array("ok".utf8))
    }

    @Test func headerFloodIsRefusedBeforeItIsAllBuffered() {
        let limits = HTTPRequestParser.Limits(maxHeaderBytes: 64 * 1024, maxHeaderCount: 100)
        // 101 fields: under the byte limit, over the count limit.
        let fields = (0...100).map { "X-\($0): v\r\n" }.joined()
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n", limits: limits) == .tooManyHeaderFields)
        // Thousands of fields: over the byte limit, refused even with the head unfinished.
        let flood = (0..<5000).map { "X-\($0): value\r\n" }.joined()
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\n" + flood) == .headerSectionTooLarge)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 20000) + "\r\n\r\n") == .headerSectionTooLarge)
    }

    @Test func longRequestLineIs414() {
        let target = "/" + String(repeating: "a", count: 9000)
        #expect(parseError("GET \(target)") == .requestLineTooLong)               // unfinished
        #expect(parseError("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n", limits: .init(maxHeaderBytes: 65536)) == .requestLineTooLong)
    }

    @Test func everyTruncationOfAValidRequestAsksForMore() throws {
        let wire = Array("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbody".utf8)
        for cut in 0..<wire.count {
            var parser = HTTPRequestParser()
            var buffer = ByteBuffer(wire[0..<cut])
            #expect(try parser.next(from: &buffer) == nil, "prefix of \(cut) bytes")
        }
    }

    @Test(arguments: [1, 2, 3, 42, 2024])
    func seededRandomBytesNeverCrashOrLoop(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let alphabet = Array("GET POST / HTTP/1.1\r\n:Host Content-Length 0123456789 chunked\t\0\u{7f}".utf8)
        for round in 0..<300 {
            let count = Int.random(in: 0...600, using: &rng)
            let bytes: [UInt8] = round % 2 == 0
                ? rng.bytes(count)
                : (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
            var parser = HTTPRequestParser(limits: .init(maxRequestLineBytes: 256, maxHeaderBytes: 512, maxHeaderCount: 10, maxBodyBytes: 64))
            var buffer = ByteBuffer(bytes)
            // Each successful parse consumes bytes, so this ends within `count + 1` steps.
            for _ in 0...count {
                let before = buffer.readableBytes
                guard let request = try? parser.next(from: &buffer) else { break }
                #expect(buffer.readableBytes < before)
                #expect(request.body.count <= 64)
            }
        }
    }
}

extension HTTPRequest: Equatable {
    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.target == b.target && a.body == b.body && a.version == b.version
            && a.headers.fields.map(\.name) == b.headers.fields.map(\.name)
            && a.headers.fields.map(\.value) == b.headers.fields.map(\.value)
    }
}
