import Testing
@testable import RTCWire

/// Owned `RTPPacket` parse / serialize against annotated byte fixtures (RFC 3550 §5.1, RFC 8285).
@Suite struct RTPPacketTests {
    static let oneByteFixture: [UInt8] = [
        0x90, 0xE0, 0x12, 0x34,  // V=2 P=0 X=1 CC=0 | M=1 PT=96 | seq=0x1234
        0xDE, 0xAD, 0xBE, 0xEF,  // timestamp=0xDEADBEEF
        0x11, 0x22, 0x33, 0x44,  // SSRC=0x11223344
        0xBE, 0xDE, 0x00, 0x03,  // profile=0xBEDE (one-byte form) | length=3 words
        0x10, 0x8A,              // id=1 L=0 (1 byte) | audio level V=1 level=10
        0x32, 0x12, 0x34, 0x56,  // id=3 L=2 (3 bytes) | abs-send-time 0x123456
        0x51, 0x01, 0x02,        // id=5 L=1 (2 bytes) | transport-wide seq=258
        0x00, 0x00, 0x00,        // padding to 32 bits
        0xAA, 0xBB, 0xCC,        // payload
    ]

    static let twoByteFixture: [UInt8] = [
        0xB2, 0x6F, 0xFF, 0xFF,  // V=2 P=1 X=1 CC=2 | M=0 PT=111 | seq=65535
        0x00, 0x00, 0x09, 0x60,  // timestamp=2400
        0xCA, 0xFE, 0xBA, 0xBE,  // SSRC=0xCAFEBABE
        0x01, 0x02, 0x03, 0x04,  // CSRC[0]
        0x05, 0x06, 0x07, 0x08,  // CSRC[1]
        0x10, 0x03, 0x00, 0x02,  // profile=0x1003 (two-byte form, appbits=3) | length=2 words
        0x01, 0x00,              // id=1 len=0 (empty value, two-byte form only)
        0x14, 0x02, 0x00, 0x07,  // id=20 len=2 | value 0x0007
        0x00, 0x00,              // padding to 32 bits
        0x01, 0x02,              // payload
        0x00, 0x00, 0x00, 0x04,  // RTP padding: 3 zero bytes + count=4
    ]

    static let genericFixture: [UInt8] = [
        0x90, 0x08, 0x00, 0x01,  // V=2 P=0 X=1 CC=0 | M=0 PT=8 | seq=1
        0x00, 0x00, 0x00, 0xA0,  // timestamp=160
        0x00, 0x00, 0x00, 0x2A,  // SSRC=42
        0xAB, 0xAC, 0x00, 0x01,  // profile=0xABAC (opaque, RFC 3550 §5.3.1) | length=1 word
        0xDE, 0xAD, 0xBE, 0xEF,  // extension data
        0x7F,                    // payload
    ]

    @Test func parsesOneByteExtensionFixtureFieldByField() throws {
        let packet = try RTPPacket(parsing: Self.oneByteFixture)
        #expect(packet.marker)
        #expect(packet.payloadType == 96)
        #expect(packet.sequenceNumber == 0x1234)
        #expect(packet.timestamp == 0xDEAD_BEEF)
        #expect(packet.ssrc == 0x1122_3344)
        #expect(packet.csrcs.isEmpty)
        #expect(packet.extensionProfile == .oneByte)
        #expect(packet.extensions == [
            RTPHeaderExtensionElement(id: 1, value: [0x8A]),
            RTPHeaderExtensionElement(id: 3, value: [0x12, 0x34, 0x56]),
            RTPHeaderExtensionElement(id: 5, value: [0x01, 0x02]),
        ])
        #expect(packet.payload == [0xAA, 0xBB, 0xCC])
        #expect(packet.paddingLength == 0)
        #expect(try AudioLevelExtension(parsing: packet.extensionValue(id: 1) ?? []) == AudioLevelExtension(voiceActivity: true, level: 10))
        #expect(try AbsSendTimeExtension(parsing: packet.extensionValue(id: 3) ?? []).rawValue == 0x123456)
        #expect(try TransportSequenceNumberExtension(parsing: packet.extensionValue(id: 5) ?? []).sequenceNumber == 258)
    }

    @Test(arguments: [oneByteFixture, twoByteFixture, genericFixture])
    func roundTripsByteForByte(fixture: [UInt8]) throws {
        let packet = try RTPPacket(parsing: fixture)
        #expect(packet.serializedSize == fixture.count)
        #expect(packet.serialize() == fixture)
    }

    @Test func parsesTwoByteFormCSRCsAndPadding() throws {
        let packet = try RTPPacket(parsing: Self.twoByteFixture)
        #expect(!packet.marker)
        #expect(packet.payloadType == 111)
        #expect(packet.sequenceNumber == 65535)
        #expect(packet.timestamp == 2400)
        #expect(packet.csrcs == [0x0102_0304, 0x0506_0708])
        #expect(packet.extensionProfile == RTPExtensionProfile(rawValue: 0x1003))
        #expect(packet.extensions == [
            RTPHeaderExtensionElement(id: 1, value: []),
            RTPHeaderExtensionElement(id: 20, value: [0x00, 0x07]),
        ])
        #expect(packet.payload == [0x01, 0x02])
        #expect(packet.paddingLength == 4)
    }

    @Test func keepsOpaqueProfileData() throws {
        let packet = try RTPPacket(parsing: Self.genericFixture)
        #expect(packet.extensionProfile == RTPExtensionProfile(rawValue: 0xABAC))
        #expect(packet.extensions.isEmpty)
        #expect(packet.extensionData == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(packet.payload == [0x7F])
    }

    @Test func picksOneByteFormWhenEveryElementFits() {
        var packet = RTPPacket(payloadType: 111, sequenceNumber: 7, timestamp: 960, ssrc: 1, payload: [0x01])
        packet.setExtension(id: 14, value: [0x55])
        #expect(packet.serialize() == [
            0x90, 0x6F, 0x00, 0x07,  // V=2 X=1 | PT=111 | seq=7
            0x00, 0x00, 0x03, 0xC0,  // timestamp=960
            0x00, 0x00, 0x00, 0x01,  // SSRC=1
            0xBE, 0xDE, 0x00, 0x01,  // one-byte form | length=1 word
            0xE0, 0x55, 0x00, 0x00,  // id=14 L=0 | 0x55 | padding
            0x01,                    // payload
        ])
    }

    @Test func upgradesToTwoByteFormForIdAbove14OrLongValues() throws {
        var packet = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 2, extensionProfile: .oneByte)
        packet.setExtension(id: 15, value: [0x01])
        let bytes = packet.serialize()
        #expect(Array(bytes[12 ..< 20]) == [
            0x10, 0x00, 0x00, 0x01,  // two-byte form | length=1 word
            0x0F, 0x01, 0x01, 0x00,  // id=15 len=1 | 0x01 | padding
        ])
        let reparsed = try RTPPacket(parsing: bytes)
        #expect(reparsed.extensionValue(id: 15) == [0x01])

        var long = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 2)
        long.setExtension(id: 2, value: [UInt8](repeating: 0x61, count: 17))
        #expect(try RTPPacket(parsing: long.serialize()).extensionProfile == .twoByte)
    }

    @Test func writesNoExtensionBlockWithoutElements() {
        let packet = RTPPacket(marker: true, payloadType: 0, sequenceNumber: 0x0102, timestamp: 3, ssrc: 4, payload: [9])
        #expect(packet.serialize() == [
            0x80, 0x80, 0x01, 0x02,  // V=2 X=0 | M=1 PT=0 | seq=0x0102
            0x00, 0x00, 0x00, 0x03,  // timestamp=3
            0x00, 0x00, 0x00, 0x04,  // SSRC=4
            0x09,                    // payload
        ])
    }

    @Test func serializeIntoCallerBufferWritesSameBytes() throws {
        let packet = try RTPPacket(parsing: Self.twoByteFixture)
        var buffer = [UInt8](repeating: 0xEE, count: 128)
        let written = buffer.withUnsafeMutableBytes { packet.serialize(into: $0) }
        #expect(written == Self.twoByteFixture.count)
        #expect(Array(buffer[0 ..< written]) == Self.twoByteFixture)
        #expect(buffer[written] == 0xEE)
    }

    @Test func setAndRemoveExtension() {
        var packet = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 2)
        packet.setExtension(id: 4, value: [1])
        packet.setExtension(id: 4, value: [2, 3])
        #expect(packet.extensions == [RTPHeaderExtensionElement(id: 4, value: [2, 3])])
        packet.removeExtension(id: 4)
        #expect(packet.extensions.isEmpty)
    }
}
