import Testing
@testable import RTCWire

/// The zero-copy view and in-place rewriting used on the forwarding path.
@Suite struct RTPPacketViewTests {
    @Test func viewReadsFieldsPayloadAndExtensionsWithoutCopying() throws {
        try RTPPacketTests.oneByteFixture.withUnsafeBytes { raw in
            let view = try RTPPacketView(raw)
            #expect(view.version == 2)
            #expect(view.hasExtension && !view.hasPadding)
            #expect(view.marker && view.payloadType == 96)
            #expect(view.sequenceNumber == 0x1234 && view.timestamp == 0xDEAD_BEEF && view.ssrc == 0x1122_3344)
            #expect(view.headerLength == 28)
            #expect(view.payloadRange == 28 ..< 31)
            #expect(Array(view.payload) == [0xAA, 0xBB, 0xCC])
            #expect(view.extensionValueRange(id: 3) == 19 ..< 22)
            #expect(view.extensionValue(id: 5).map(Array.init) == [0x01, 0x02])
            #expect(view.extensionValue(id: 2) == nil)
            #expect(view.extensionElements.map(\.id) == [1, 3, 5])
            let level = try AudioLevelExtension(parsing: try #require(view.extensionValue(id: 1)))
            #expect(level.voiceActivity && level.level == 10)
        }
    }

    @Test func viewExcludesPaddingAndReadsCSRCs() throws {
        try RTPPacketTests.twoByteFixture.withUnsafeBytes { raw in
            let view = try RTPPacketView(raw)
            #expect(view.csrcCount == 2)
            #expect(view.csrc(at: 0) == 0x0102_0304 && view.csrc(at: 1) == 0x0506_0708)
            #expect(view.paddingLength == 4)
            #expect(Array(view.payload) == [0x01, 0x02])
            #expect(view.extensionProfile == RTPExtensionProfile(rawValue: 0x1003))
            #expect(view.extensionValue(id: 1)?.count == 0)
            #expect(view.extensionValue(id: 20).map(Array.init) == [0x00, 0x07])
        }
    }

    @Test func opaqueProfileHasNoElements() throws {
        try RTPPacketTests.genericFixture.withUnsafeBytes { raw in
            let view = try RTPPacketView(raw)
            #expect(Array(view.extensionElements).isEmpty)
            #expect(Array(view.extensionData) == [0xDE, 0xAD, 0xBE, 0xEF])
        }
    }

    @Test func oneByteId15StopsElementProcessing() throws {
        let bytes: [UInt8] = [
            0x90, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // V=2 X=1 PT=96 seq=1 ts=0 SSRC=1
            0xBE, 0xDE, 0x00, 0x01,  // one-byte form | length=1
            0x10, 0x07,              // id=1 L=0 | 0x07
            0xF3, 0x00,              // id=15: stop here (RFC 8285 §4.2), the length nibble is ignored
        ]
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.extensions == [RTPHeaderExtensionElement(id: 1, value: [0x07])])
    }

    @Test func rewritesHeaderFieldsInPlace() throws {
        var bytes = RTPPacketTests.oneByteFixture
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try RTPMutablePacketView(raw)
            packet.ssrc = 0xA1A2_A3A4
            packet.sequenceNumber = 0xFFFE
            packet.timestamp = 0x0102_0304
            packet.marker = false
            packet.payloadType = 100
        }
        #expect(Array(bytes[0 ..< 12]) == [
            0x90, 0x64, 0xFF, 0xFE,  // V=2 X=1 | M=0 PT=100 | seq=0xFFFE
            0x01, 0x02, 0x03, 0x04,  // timestamp
            0xA1, 0xA2, 0xA3, 0xA4,  // SSRC
        ])
        #expect(Array(bytes[12...]) == Array(RTPPacketTests.oneByteFixture[12...]))
    }

    @Test func rewritesExtensionValuesInPlace() throws {
        var bytes = RTPPacketTests.oneByteFixture
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try RTPMutablePacketView(raw)
            #expect(packet.setTransportSequenceNumber(0xBEEF, id: 5))
            #expect(packet.setAbsSendTime(AbsSendTimeExtension(rawValue: 0xABCDEF), id: 3))
            #expect(!packet.setTransportSequenceNumber(1, id: 3))  // wrong size: untouched
            #expect(!packet.setTransportSequenceNumber(1, id: 9))  // absent
            let level: [UInt8] = [0x05]
            #expect(level.withUnsafeBytes { packet.setExtensionValue(id: 1, to: $0) })
        }
        #expect(Array(bytes[16 ..< 25]) == [
            0x10, 0x05,              // id=1 | level 5, V=0
            0x32, 0xAB, 0xCD, 0xEF,  // id=3 | abs-send-time 0xABCDEF
            0x51, 0xBE, 0xEF,        // id=5 | transport-wide seq 0xBEEF
        ])
    }

    @Test func renumbersAndRemovesExtensionsInPlace() throws {
        var bytes = RTPPacketTests.oneByteFixture
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try RTPMutablePacketView(raw)
            #expect(packet.rewriteExtensionID(from: 5, to: 7))
            #expect(!packet.rewriteExtensionID(from: 1, to: 15))  // does not fit the one-byte form
            #expect(packet.removeExtension(id: 3))
            #expect(!packet.removeExtension(id: 3))
        }
        #expect(Array(bytes[16 ..< 25]) == [
            0x10, 0x8A,              // id=1 unchanged
            0x00, 0x00, 0x00, 0x00,  // id=3 blanked into padding
            0x71, 0x01, 0x02,        // id=7 L=1 (was id=5)
        ])
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.extensions.map(\.id) == [1, 7])
    }

    @Test func renumbersTwoByteElements() throws {
        var bytes = RTPPacketTests.twoByteFixture
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try RTPMutablePacketView(raw)
            #expect(packet.rewriteExtensionID(from: 20, to: 200))
        }
        #expect(try RTPPacket(parsing: bytes).extensionValue(id: 200) == [0x00, 0x07])
    }
}
