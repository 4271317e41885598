import Testing
@testable import RTCNet
import TestRandom

@Suite struct WebSocketFrameTests {
    private func serverReceive(_ bytes: [UInt8], max: Int = 1 << 20) throws(WebSocketError) -> [WebSocketReceiver.Event] {
        var receiver = WebSocketReceiver(expectsMaskedFrames: true, maxMessageSize: max)
        var buffer = ByteBuffer(bytes)
        var events: [WebSocketReceiver.Event] = []
        while let event = try receiver.next(from: &buffer) { events.append(event) }
        return events
    }

    private func clientReceive(_ bytes: [UInt8], max: Int = 1 << 20) throws(WebSocketError) -> [WebSocketReceiver.Event] {
        var receiver = WebSocketReceiver(expectsMaskedFrames: false, maxMessageSize: max)
        var buffer = ByteBuffer(bytes)
        var events: [WebSocketReceiver.Event] = []
        while let event = try receiver.next(from: &buffer) { events.append(event) }
        return events
    }

    /// Masks a payload as a client would, for building fixtures.
    private func masked(_ header: [UInt8], key: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        header + key + payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
    }

    @Test func handshakeAcceptValueMatchesRFC6455Section1_3() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    // RFC 6455 §5.7 examples.
    @Test func rfcExampleUnmaskedHelloFromServer() throws {
        // FIN=1 opcode=1 (text) | MASK=0 len=5 | "Hello"
        let frame: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        #expect(try clientReceive(frame) == [.message(.text("Hello"))])
        #expect(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded() == frame)
    }

    @Test func rfcExampleMaskedHelloFromClient() throws {
        // FIN=1 text | MASK=1 len=5 | key 37 fa 21 3d | masked "Hello"
        let frame: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(try serverReceive(frame) == [.message(.text("Hello"))])
        #expect(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded(maskingKey: 0x37FA_213D) == frame)
    }

    @Test func rfcExampleFragmentedText() throws {
        // FIN=0 text "Hel", then FIN=1 continuation "lo"
        let frames: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]
        #expect(try clientReceive(frames) == [.message(.text("Hello"))])
    }

    @Test func rfcExamplePingAndMaskedPong() throws {
        #expect(try clientReceive([0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]) == [.ping(Array("Hello".utf8))])
        #expect(try serverReceive([0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]) == [.pong(Array("Hello".utf8))])
    }

    @Test func rfcExample16And64BitLengths() throws {
        let small = [UInt8](repeating: 0xAB, count: 256)
        // FIN binary | len=126 | 16-bit 0x0100
        let f16: [UInt8] = [0x82, 0x7E, 0x01, 0x00] + small
        #expect(try clientReceive(f16) == [.message(.binary(small))])
        #expect(WebSocketFrame(opcode: .binary, payload: small).encoded() == f16)
        let big = [UInt8](repeating: 0xCD, count: 65536)
        // FIN binary | len=127 | 64-bit 0x0000000000010000
        let f64: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + big
        #expect(try clientReceive(f64) == [.message(.binary(big))])
        #expect(WebSocketFrame(opcode: .binary, payload: big).encoded() == f64)
    }

    @Test func controlFramesMayInterleaveFragments() throws {
        let key: [UInt8] = [1, 2, 3, 4]
        let bytes = masked([0x01, 0x82], key: key, Array("ab".utf8))      // text, not final
            + masked([0x89, 0x81], key: key, [0x70])                      // ping "p"
            + masked([0x80, 0x81], key: key, Array("c".utf8))             // final continuation
        #expect(try serverReceive(bytes) == [.ping([0x70]), .message(.text("abc"))])
    }

    @Test func closeFrameDecoding() throws {
        // Close with code 1000 (0x03E8) and reason "bye".
        #expect(try clientReceive([0x88, 0x05, 0x03, 0xE8, 0x62, 0x79, 0x65]) == [.close(.normalClosure, "bye")])
        #expect(try clientReceive([0x88, 0x00]) == [.close(nil, "")])
    }

    static let violations: [(String, [UInt8], Bool, WebSocketCloseCode)] = [
        // (name, bytes, server side?, expected close code)
        ("unmasked client frame", [0x81, 0x01, 0x41], true, .protocolError),
        ("masked server frame", [0x81, 0x81, 0, 0, 0, 0, 0x41], false, .protocolError),
        ("RSV1 set", [0xC1, 0x01, 0x41], false, .protocolError),
        ("RSV3 set", [0x91, 0x01, 0x41], false, .protocolError),
        ("reserved data opcode 3", [0x83, 0x00], false, .protocolError),
        ("reserved control opcode 0xB", [0x8B, 0x00], false, .protocolError),
        ("fragmented ping", [0x09, 0x00], false, .protocolError),
        ("ping longer than 125", [0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126), false, .protocolError),
        ("64-bit length with top bit", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1], false, .protocolError),
        ("2^63 length", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], false, .protocolError),
        ("length over the limit", [0x82, 0x7F, 0, 0, 0, 0, 0, 0x10, 0, 1], false, .messageTooBig),
        ("continuation without a start", [0x80, 0x01, 0x41], false, .protocolError),
        ("text inside a fragmented message", [0x01, 0x01, 0x41, 0x81, 0x01, 0x42], false, .protocolError),
        ("invalid UTF-8 text", [0x81, 0x02, 0xC3, 0x28], false, .invalidPayload),
        ("UTF-8 split badly over fragments", [0x01, 0x01, 0xE2, 0x80, 0x01, 0x28], false, .invalidPayload),
        ("close with 1-byte body", [0x88, 0x01, 0x03], false, .protocolError),
        ("close code 1005 on the wire", [0x88, 0x02, 0x03, 0xED], false, .protocolError),
        ("close code 999", [0x88, 0x02, 0x03, 0xE7], false, .protocolError),
        ("close code 5000", [0x88, 0x02, 0x13, 0x88], false, .protocolError),
        ("close reason not UTF-8", [0x88, 0x03, 0x03, 0xE8, 0xFF], false, .invalidPayload),
    ]

    @Test(arguments: violations)
    func protocolViolationsFailWithTheirCloseCode(_ name: String, _ bytes: [UInt8], _ serverSide: Bool, _ code: WebSocketCloseCode) {
        do {
            let events = serverSide ? try serverReceive(bytes, max: 1 << 20) : try clientReceive(bytes, max: 1 << 20)
            Issue.record("\(name): accepted as \(events)")
        } catch {
            #expect(error.closeCode == code, "\(name)")
        }
    }

    @Test func fragmentsAddingUpPastTheLimitAre1009() {
        // Two 80-byte fragments with a 100-byte limit.
        let part = [UInt8](repeating: 0x61, count: 80)
        let bytes: [UInt8] = [0x02, 80] + part + [0x80, 80] + part
        #expect(throws: WebSocketError.messageTooBig(limit: 100)) { _ = try clientReceive(bytes, max: 100) }
    }

    @Test func unmaskHandlesEveryLengthAndAlignment() {
        for length in 0..<40 {
            let plain = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            var payload = plain.enumerated().map { $0.element ^ [0x11, 0x22, 0x33, 0x44][$0.offset & 3] }
            WebSocketFrameParser.unmask(&payload, key: (0x11, 0x22, 0x33, 0x44))
            #expect(payload == plain)
        }
    }

    @Test func truncatedFramesWaitForMore() throws {
        let frame = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 300)).encoded(maskingKey: 0xDEAD_BEEF)
        for cut in 0..<frame.count {
            #expect(try serverReceive(Array(frame[0..<cut])).isEmpty, "cut at \(cut)")
        }
        #expect(try serverReceive(frame) == [.message(.binary([UInt8](repeating: 7, count: 300)))])
    }

    @Test(arguments: [7, 99, 12345])
    func seededRandomBytesNeverCrashOrLoop(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        for _ in 0..<500 {
            let bytes = rng.bytes(Int.random(in: 0...300, using: &rng))
            for serverSide in [true, false] {
                var receiver = WebSocketReceiver(expectsMaskedFrames: serverSide, maxMessageSize: 200)
                var buffer = ByteBuffer(bytes)
                // Every event consumes at least two bytes, so this ends.
                for _ in 0...bytes.count {
                    guard let event = try? receiver.next(from: &buffer) else { break }
                    if case .message(let message) = event, case .binary(let data) = message { #expect(data.count <= 200) }
                }
            }
        }
    }
}
