import RTCWire
import Testing
import TestRandom

/// RTX packets (RFC 4588 §4): the original's header with the RTX SSRC, number and payload type,
/// then the original sequence number (OSN) and the original payload.
struct RTXPacketTests {
    /// A packet with a CSRC, a one-byte extension block, the marker and 3 octets of padding.
    static let original = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 0xFFFE, timestamp: 0x1234_5678, ssrc: 0xAAAA_0001,
                                    csrcs: [0x0C0C_0C0C], extensionProfile: .oneByte,
                                    extensions: [RTPHeaderExtensionElement(id: 3, value: [0xBE, 0xEF])],
                                    payload: [1, 2, 3, 4, 5], paddingLength: 3).serialize()

    @Test func wrapKeepsTheHeaderAndPutsTheOriginalNumberBeforeThePayload() throws {
        var bytes = Self.original + [UInt8](repeating: 0, count: 8)
        let length = try #require(bytes.withUnsafeMutableBytes {
            RTXPacket.wrap($0, length: Self.original.count, ssrc: 0xBBBB_0002, sequenceNumber: 7, payloadType: 97)
        })
        #expect(length == Self.original.count - 3 + 2)
        let rtx = try RTPPacket(parsing: Array(bytes[0 ..< length]))
        #expect(rtx.ssrc == 0xBBBB_0002 && rtx.sequenceNumber == 7 && rtx.payloadType == 97 && rtx.marker)
        #expect(rtx.timestamp == 0x1234_5678 && rtx.csrcs == [0x0C0C_0C0C] && rtx.extensionValue(id: 3) == [0xBE, 0xEF])
        #expect(rtx.payload == [0xFF, 0xFE, 1, 2, 3, 4, 5] && rtx.paddingLength == 0)

        // And back: the original without its padding.
        var out = [UInt8](repeating: 0, count: 64)
        let back = try #require(bytes.withUnsafeBytes { rtxBytes in
            out.withUnsafeMutableBytes { RTXPacket.unwrap(UnsafeRawBufferPointer(rebasing: rtxBytes[0 ..< length]), into: $0, ssrc: 0xAAAA_0001, payloadType: 96) }
        })
        let unwrapped = try RTPPacket(parsing: Array(out[0 ..< back]))
        let plain = try RTPPacket(parsing: Self.original)
        #expect(unwrapped.sequenceNumber == 0xFFFE && unwrapped.ssrc == 0xAAAA_0001 && unwrapped.payloadType == 96 && unwrapped.marker)
        #expect(unwrapped.payload == plain.payload && unwrapped.paddingLength == 0 && unwrapped.csrcs == plain.csrcs)
        #expect(unwrapped.extensionValue(id: 3) == [0xBE, 0xEF] && unwrapped.timestamp == plain.timestamp)
    }

    @Test func wrapRefusesWhatDoesNotFitOrParse() {
        // No room for the OSN: the packet exactly fills its buffer and has no padding to give up.
        var full = RTPPacket(marker: false, payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: [1, 2, 3]).serialize()
        let count = full.count
        #expect(full.withUnsafeMutableBytes { RTXPacket.wrap($0, length: count, ssrc: 2, sequenceNumber: 0, payloadType: 97) } == nil)
        var short: [UInt8] = [0x80, 96, 0, 1]
        #expect(short.withUnsafeMutableBytes { RTXPacket.wrap($0, length: 4, ssrc: 2, sequenceNumber: 0, payloadType: 97) } == nil)
    }

    @Test func aPaddingOnlyRTXPacketHasNothingToUnwrap() {
        // RFC 4588 §4 allows padding-only packets on the RTX stream (probing): no OSN.
        let padding = RTPPacket(marker: false, payloadType: 97, sequenceNumber: 9, timestamp: 0, ssrc: 2, payload: [], paddingLength: 255).serialize()
        var out = [UInt8](repeating: 0, count: 1500)
        #expect(padding.withUnsafeBytes { rtx in out.withUnsafeMutableBytes { RTXPacket.unwrap(rtx, into: $0, ssrc: 1, payloadType: 96) } } == nil)
        // An OSN alone is an empty original.
        let empty = RTPPacket(marker: false, payloadType: 97, sequenceNumber: 9, timestamp: 0, ssrc: 2, payload: [0, 5]).serialize()
        #expect(empty.withUnsafeBytes { rtx in out.withUnsafeMutableBytes { RTXPacket.unwrap(rtx, into: $0, ssrc: 1, payloadType: 96) } } == 12)
    }

    /// Robustness: arbitrary bytes (and RTX packets cut short or bit-flipped) never crash either
    /// direction, an unwrap stays inside its buffers, and whatever unwraps parses as RTP.
    @Test func tenThousandSeededRandomInputsNeverCrash() throws {
        var random = SeededRandom(seed: 0x5254_5821)
        var out = [UInt8](repeating: 0, count: 256)
        for round in 0 ..< 10_000 {
            var input: [UInt8]
            if round % 2 == 0 {
                input = random.bytes(Int.random(in: 0 ... 80, using: &random))
                if !input.isEmpty { input[0] = input[0] & 0x3F | 0x80 }  // mostly version 2
            } else {
                input = Self.original
                input[Int.random(in: 0 ..< input.count, using: &random)] ^= UInt8.random(in: 1 ... 255, using: &random)
                input = Array(input.prefix(Int.random(in: 0 ... input.count, using: &random)))
            }
            let outCount = Int.random(in: 0 ... out.count, using: &random)
            let unwrapped = input.withUnsafeBytes { rtx in
                out.withUnsafeMutableBytes { RTXPacket.unwrap(rtx, into: UnsafeMutableRawBufferPointer(rebasing: $0[0 ..< outCount]), ssrc: 1, payloadType: 96) }
            }
            if let unwrapped {
                #expect(unwrapped <= outCount && unwrapped <= input.count)
                #expect((try? RTPPacket(parsing: Array(out[0 ..< unwrapped]))) != nil)
            }
            var buffer = input + [0, 0]
            let inputCount = input.count
            if let wrapped = buffer.withUnsafeMutableBytes({ RTXPacket.wrap($0, length: inputCount, ssrc: 2, sequenceNumber: 3, payloadType: 97) }) {
                #expect(wrapped <= buffer.count)
                #expect((try? RTPPacket(parsing: Array(buffer[0 ..< wrapped])))?.ssrc == 2)
            }
        }
    }
}
