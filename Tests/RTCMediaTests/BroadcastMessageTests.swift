import RTCMedia
import TestRandom
import Testing

/// The broadcast stream between an extension and its host: every message survives the trip in
/// any pieces, bad streams get named errors, random bytes never crash the reader.
struct BroadcastMessageTests {
    static func messages() throws -> [BroadcastMessage] {
        let picture = try TestPatternGenerator(width: 96, height: 64).videoFrame(number: 77)
        let turned = VideoFrame(buffer: picture.buffer, timestampUs: -5, rotation: .rotation270)
        let audio = AudioPCMBuffer(int16: [0, 1, -1, .max, .min, 1234], sampleRate: 44_100, channels: 2, timestampUs: 99)
        return [.hello(version: 1), .video(picture), .video(turned), .appAudio(audio), .stop, .finished]
    }

    static func encoded(_ messages: [BroadcastMessage]) -> [UInt8] {
        var bytes: [UInt8] = []
        for message in messages { message.encode(into: &bytes) }
        return bytes
    }

    @Test func messagesSurviveTheStreamInAnyPieces() throws {
        let sent = try Self.messages()
        let bytes = Self.encoded(sent)
        var random = SeededRandom(seed: 1)
        for _ in 0..<20 {
            var reader = BroadcastStreamReader()
            var received: [BroadcastMessage] = []
            var offset = 0
            while offset < bytes.count {
                let piece = min(bytes.count - offset, Int.random(in: 1...9_000, using: &random))
                bytes[offset..<(offset + piece)].withUnsafeBytes { reader.append($0) }
                offset += piece
                while let message = try reader.next() { received.append(message) }
            }
            #expect(received == sent)
            #expect(reader.pendingBytes == 0)
        }
        // The picture is the one sent, frame number and all.
        if case .video(let frame) = sent[1] { #expect(TestPatternReader.frameNumber(in: frame) == 77) }
    }

    @Test(arguments: [
        ([0, 0, 0, 0], BroadcastMessage.ParseError.badLength(0)),
        ([0x01, 0, 0, 1, 2], .badLength(0x0100_0001)),
        ([0, 0, 0, 1, 9], .unknownType(9)),
        ([0, 0, 0, 1, 1], .malformed("hello cut short")),
        ([0, 0, 0, 3, 1, 1, 0], .malformed("a body after the hello's version")),
        ([0, 0, 0, 2, 4, 0], .malformed("a body after type 4")),
        ([0, 0, 0, 15, 2, 0, 2, 0, 2, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0], .malformed("rotation")),
        ([0, 0, 0, 20, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5], .malformed("picture 2x2 in 5 bytes")),
        ([0, 0, 0, 16, 3, 0, 0, 0x1F, 0x40, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2], .malformed("audio 8000 Hz, 2 channels, 2 bytes")),
        ([0, 0, 0, 14, 3, 0, 0, 0, 10, 1, 0, 0, 0, 0, 0, 0, 0, 0], .malformed("audio 10 Hz, 1 channels, 0 bytes")),
    ] as [([UInt8], BroadcastMessage.ParseError)])
    func badStreamsGetNamedErrors(bytes: [UInt8], error: BroadcastMessage.ParseError) {
        var reader = BroadcastStreamReader()
        bytes.withUnsafeBytes { reader.append($0) }
        #expect(throws: error) { _ = try reader.next() }
    }

    @Test func randomBytesNeverCrashTheReader() {
        var random = SeededRandom(seed: 2)
        let valid = (try? Self.encoded(Self.messages())) ?? []
        for round in 0..<2_000 {
            var bytes = round % 2 == 0 ? random.bytes(Int.random(in: 0...300, using: &random)) : valid
            if round % 2 == 1 {   // a valid stream with a few bytes changed
                for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            }
            var reader = BroadcastStreamReader()
            bytes.withUnsafeBytes { reader.append($0) }
            while let message = try? reader.next() { _ = message }
        }
    }
}
