import Testing
@testable import RTCWire
import TestRandom

/// Hostile RTP input: each named error, then seeded random, truncated and length-lying bytes.
@Suite struct RTPRobustnessTests {
    static let header: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]

    static let namedErrorCases: [(String, [UInt8], RTPError)] = [
        ("11 bytes", Array(header.prefix(11)), .packetTooShort),
        ("version 1", [0x40] + header.dropFirst(), .unsupportedVersion(1)),
        // CC=2 but only one CSRC follows.
        ("csrc", [0x82] + header.dropFirst() + [0, 0, 0, 1], .csrcOverrun),
        // X=1 with two bytes after the fixed header.
        ("extension header", [0x90] + header.dropFirst() + [0xBE, 0xDE], .extensionHeaderOverrun),
        // X=1, length=2 words but one word of data.
        ("extension length", [0x90] + header.dropFirst() + [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x01, 0, 0], .extensionOverrun),
        // One-byte element id=1 L=4 (5 bytes) in a 4-byte block.
        ("element", [0x90] + header.dropFirst() + [0xBE, 0xDE, 0x00, 0x01, 0x14, 0x01, 0x02, 0x03], .extensionElementOverrun),
        // Two-byte element id=1 len=9 in a 4-byte block.
        ("two-byte element", [0x90] + header.dropFirst() + [0x10, 0x00, 0x00, 0x01, 0x01, 0x09, 0x00, 0x00], .extensionElementOverrun),
        // P=1, last byte 0.
        ("padding zero", [0xA0] + header.dropFirst() + [0xAA, 0x00], .paddingLengthZero),
        // P=1, count 3 but only two bytes follow the header.
        ("padding overrun", [0xA0] + header.dropFirst() + [0xAA, 0x03], .paddingOverrun),
        // P=1 and nothing after the header at all.
        ("padding empty", [0xA0] + header.dropFirst(), .paddingOverrun),
    ]

    @Test(arguments: namedErrorCases)
    func throwsNamedError(name: String, bytes: [UInt8], error: RTPError) {
        #expect(throws: error, "\(name)") { try RTPPacket(parsing: bytes) }
        #expect(throws: error, "\(name)") { try bytes.withUnsafeBytes { _ = try RTPPacketView($0) } }
    }

    @Test func paddingEqualToAllBytesAfterHeaderIsAccepted() throws {
        let packet = try RTPPacket(parsing: [0xA0] + Self.header.dropFirst() + [0x00, 0x02])
        #expect(packet.payload.isEmpty && packet.paddingLength == 2)
    }

    /// Parses with both layers; when parsing succeeds, serializing and reparsing gives the same packet.
    static func checkRoundTrip(_ bytes: [UInt8]) {
        let owned = try? RTPPacket(parsing: bytes)
        let viewParsed = bytes.withUnsafeBytes { (try? RTPPacketView($0)).map(RTPPacket.init) }
        #expect(owned == viewParsed, "view and owned disagree on \(hexString(bytes))")
        if let owned {
            let again = try? RTPPacket(parsing: owned.serialize())
            #expect(again == owned, "round trip changed \(hexString(bytes))")
        }
    }

    @Test func tenThousandSeededRandomInputsNeverCrash() {
        var random = SeededRandom(seed: 0x5254_5021)
        for _ in 0 ..< 10_000 {
            var bytes = random.bytes(Int.random(in: 0 ... 80, using: &random))
            // Keep version 2 most of the time so the deeper checks run.
            if !bytes.isEmpty, Bool.random(using: &random) { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            if bytes.count > 13, Bool.random(using: &random) { bytes[12] = 0xBE; bytes[13] = 0xDE }
            Self.checkRoundTrip(bytes)
        }
    }

    @Test func everyTruncationOfTheFixturesIsHandled() {
        for fixture in [RTPPacketTests.oneByteFixture, RTPPacketTests.twoByteFixture, RTPPacketTests.genericFixture] {
            for length in 0 ... fixture.count { Self.checkRoundTrip(Array(fixture.prefix(length))) }
        }
    }

    @Test func lyingLengthFieldsAreHandled() {
        for fixture in [RTPPacketTests.oneByteFixture, RTPPacketTests.twoByteFixture] {
            for value in 0 ... 255 {
                var csrc = fixture; csrc[0] = (csrc[0] & 0xF0) | UInt8(value & 0x0F)
                var extensionLength = fixture; extensionLength[15 + 4 * Int(fixture[0] & 0x0F)] = UInt8(value)
                var padding = fixture; padding[0] |= 0x20; padding[padding.count - 1] = UInt8(value)
                var element = fixture; element[16 + 4 * Int(fixture[0] & 0x0F)] = UInt8(value)
                for bytes in [csrc, extensionLength, padding, element] { Self.checkRoundTrip(bytes) }
            }
        }
    }
}
