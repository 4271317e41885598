import Testing
@testable import RTCWire
import TestRandom

/// Hostile RTCP input: each named error, then seeded random, truncated and length-lying bytes.
@Suite struct RTCPRobustnessTests {
    static let pli = RTCPFixtures.pictureLossIndication

    static let namedErrorCases: [(String, [UInt8], RTCPError)] = [
        ("3 bytes", [0x80, 0xC9, 0x00], .packetTooShort),
        ("version 1", [0x41, 0xC9, 0x00, 0x00], .unsupportedVersion(1)),
        ("length past end", [0x80, 0xC9, 0x00, 0x09, 0, 0, 0, 1], .lengthOverrun),
        // P=1, last byte (padding count) 0.
        ("padding zero", [0xA1, 0xCE, 0x00, 0x03] + pli.dropFirst(4) + [0, 0, 0, 0], .paddingLengthZero),
        // P=1, padding count 255 in a 16-byte packet.
        ("padding overrun", [0xA1, 0xCE, 0x00, 0x03] + pli.dropFirst(4) + [0, 0, 0, 0xFF], .paddingOverrun),
        // SR with only 20 of its 24 fixed bytes.
        ("short SR", [0x80, 0xC8, 0x00, 0x05] + [UInt8](repeating: 0, count: 20), .packetTooShort),
        // RR with RC=2 but one report block.
        ("RR count", [0x82] + RTCPFixtures.receiverReport.dropFirst(), .reportCountOverrun),
        // SR with RC=3 but one report block.
        ("SR count", [0x83] + RTCPFixtures.senderReport.dropFirst(), .reportCountOverrun),
        // SDES with SC=2 but one chunk.
        ("SDES count", [0x82] + RTCPFixtures.sourceDescription.dropFirst(), .sdesChunkOverrun),
        // SDES item CNAME length=20 in a 16-byte packet.
        ("SDES item", [0x81, 0xCA, 0x00, 0x03, 0, 0, 0, 1, 0x01, 0x14, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66], .sdesItemOverrun),
        // SDES chunk whose items fill the packet with no null terminator.
        ("SDES terminator", [0x81, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x02, 0x61, 0x62], .sdesItemOverrun),
        // BYE with SC=3 but two SSRCs.
        ("BYE count", [0x83, 0xCB, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2], .goodbyeSourceCountOverrun),
        // BYE reason length=20 with three bytes of text.
        ("BYE reason", [0x81, 0xCB, 0x00, 0x02, 0, 0, 0, 1, 0x14, 0x62, 0x79, 0x65], .goodbyeReasonOverrun),
        // NACK with the two SSRCs and no FCI.
        ("NACK FCI", [0x81, 0xCD, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2], .nackShortFCI),
        // FIR with one word of FCI (entries are two words).
        ("FIR FCI", [0x84, 0xCE, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2], .firShortFCI),
        // FIR with no FCI.
        ("FIR empty", [0x84, 0xCE, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0], .firShortFCI),
        // REMB claiming 5 SSRCs with one present.
        ("REMB count", Array(RTCPFixtures.remb[0 ..< 16]) + [0x05] + RTCPFixtures.remb[17...], .rembSSRCCountOverrun),
        // Transport-cc with packet status count 100 and no chunk.
        ("TWCC status", [0x8F, 0xCD, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x01, 0x00, 0x64, 0, 0, 0, 0], .transportCCStatusOverrun),
        // Transport-cc: run of 5 small deltas, one delta byte present.
        ("TWCC delta", [0x8F, 0xCD, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x01, 0x00, 0x05, 0, 0, 0, 0,
                        0x20, 0x05, 0x01, 0x00], .transportCCDeltaOverrun),
    ]

    @Test(arguments: namedErrorCases)
    func compoundParseThrowsNamedError(name: String, bytes: [UInt8], error: RTCPError) {
        #expect(throws: error, "\(name)") { try RTCPCompound.parse(bytes) }
    }

    @Test func singlePacketParsersRejectTrailingBytesAndWrongTypes() {
        #expect(throws: RTCPError.trailingBytes) { try PictureLossIndication(parsing: Self.pli + [0x80, 0xC9, 0, 0]) }
        #expect(throws: RTCPError.wrongPacketType(packetType: 205, format: 1)) {
            try PictureLossIndication(parsing: RTCPFixtures.nack)
        }
        var notREMB = RTCPFixtures.remb
        notREMB[12] = 0x41
        #expect(throws: RTCPError.rembMissingIdentifier) { try ReceiverEstimatedMaxBitrate(parsing: notREMB) }
        #expect(throws: RTCPError.packetTooShort) { try RTCPCompound.parse([UInt8]()) }
    }

    /// Parses; when parsing succeeds, serializing and reparsing gives the same packets.
    static func checkRoundTrip(_ bytes: [UInt8]) {
        guard let packets = try? RTCPCompound.parse(bytes) else { return }
        let again = try? RTCPCompound.parse(RTCPCompound.serialize(packets))
        #expect(again == packets, "round trip changed \(hexString(bytes))")
    }

    @Test func tenThousandSeededRandomInputsNeverCrash() {
        var random = SeededRandom(seed: 0x5254_4350)
        let types: [UInt8] = [200, 201, 202, 203, 204, 205, 206]
        for _ in 0 ..< 10_000 {
            let words = Int.random(in: 1 ... 16, using: &random)
            var bytes = random.bytes(words * 4)
            // Mostly a plausible header, so the per-type parsers run.
            if Int.random(in: 0 ..< 4, using: &random) != 0 {
                bytes[0] = 0x80 | (bytes[0] & 0x3F)
                bytes[1] = types.randomElement(using: &random) ?? 200
                bytes[2] = 0
                bytes[3] = UInt8(words - 1)
            }
            Self.checkRoundTrip(bytes)
        }
    }

    @Test func everyTruncationOfTheFixturesIsHandled() {
        for fixture in RTCPFixtures.all {
            for length in 0 ... fixture.count { Self.checkRoundTrip(Array(fixture.prefix(length))) }
        }
    }

    @Test func lyingCountLengthAndPaddingFieldsAreHandled() {
        for fixture in RTCPFixtures.all {
            for value in 0 ... 255 {
                var count = fixture; count[0] = (count[0] & 0xE0) | UInt8(value & 0x1F)
                var length = fixture; length[3] = UInt8(value)
                var padding = fixture; padding[0] |= 0x20; padding[padding.count - 1] = UInt8(value)
                var field = fixture; field[min(13, fixture.count - 1)] = UInt8(value)
                var twccCount = fixture; twccCount[min(15, fixture.count - 1)] = UInt8(value)
                for bytes in [count, length, padding, field, twccCount] { Self.checkRoundTrip(bytes) }
            }
        }
    }
}
