import Testing
@testable import RTCNet
import TestRandom

@Suite struct HTTPResponseParserTests {
    private func parse(_ text: String, method: String = "GET") throws(HTTPParserError) -> HTTPResponse? {
        var parser = HTTPResponseParser(requestMethod: method)
        var buffer = ByteBuffer(Array(text.utf8))
        return try parser.next(from: &buffer)
    }

    @Test func contentLengthBodyAndReuse() throws {
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer(Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 204 No Content\r\n\r\n".utf8))
        let first = try #require(try parser.next(from: &buffer))
        #expect(first.body == Array("abc".utf8))
        #expect(parser.connectionReusable)
        let second = try #require(try parser.next(from: &buffer))
        #expect(second.status == 204)
        #expect(buffer.isEmpty)
    }

    @Test func interimResponsesAreSkippedBut101IsFinal() throws {
        #expect(try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")?.status == 200)
        #expect(try parse("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")?.status == 101)
    }

    @Test func headResponseHasNoBodyDespiteLength() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", method: "HEAD")?.body == [])
    }

    @Test func chunkedBodySplitAnywhereArrivesWhole() throws {
        let wire = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n".utf8)
        for cut in 1..<wire.count {
            var parser = HTTPResponseParser()
            var buffer = ByteBuffer(wire[0..<cut])
            #expect(try parser.next(from: &buffer) == nil, "cut \(cut)")
            buffer.append(contentsOf: wire[cut...])
            #expect(try parser.next(from: &buffer)?.body == Array("abc0123456789".utf8), "cut \(cut)")
        }
    }

    @Test func connectionCloseMakesItNotReusable() throws {
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer(Array("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
        _ = try parser.next(from: &buffer)
        #expect(!parser.connectionReusable)
    }

    static let rejections: [(String, HTTPParserError)] = [
        ("HTTP/1.1 20 OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/2 200 OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 200OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformedChunk),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", .malformedChunk),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n", .bodyTooLarge),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", .bodyTooLarge),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", .invalidContentLength),
    ]

    @Test(arguments: rejections)
    func malformedResponsesThrow(_ text: String, _ expected: HTTPParserError) {
        #expect(throws: expected) { _ = try parse(text) }
    }

    @Test(arguments: [5, 6, 77])
    func seededRandomBytesNeverCrashOrLoop(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let alphabet = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked Content-Length: 0123456789abcdef;\r\n".utf8)
        for round in 0..<300 {
            let count = Int.random(in: 0...400, using: &rng)
            let bytes = round % 2 == 0 ? rng.bytes(count) : (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
            var parser = HTTPResponseParser(limits: .init(maxHeaderBytes: 256, maxHeaderCount: 8, maxBodyBytes: 128))
            var buffer = ByteBuffer(bytes)
            for _ in 0...count {
                let before = buffer.readableBytes
                guard let response = try? parser.next(from: &buffer) else { break }
                #expect(response.body.count <= 128)
                if buffer.readableBytes == before { break }
            }
            _ = parser.finish()
        }
    }
}
