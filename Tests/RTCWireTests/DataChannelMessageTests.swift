import Testing
import RTCWire
import TestRandom

/// DCEP (RFC 8832) messages: annotated fixtures, every channel type, and hostile input.
@Suite struct DataChannelMessageTests {
    /// DATA_CHANNEL_OPEN for an unordered channel with at most 3 retransmissions.
    static let open: [UInt8] = [
        0x03,                   // message type: DATA_CHANNEL_OPEN (RFC 8832 §5.1)
        0x81,                   // channel type: PARTIAL_RELIABLE_REXMIT_UNORDERED
        0x01, 0x00,             // priority 256
        0x00, 0x00, 0x00, 0x03, // reliability parameter: 3 retransmissions
        0x00, 0x04,             // label length 4
        0x00, 0x04,             // protocol length 4
        0x63, 0x68, 0x61, 0x74, // label "chat"
        0x73, 0x72, 0x74, 0x63, // protocol "srtc"
    ]

    @Test func parsesTheAnnotatedOpen() throws {
        let message = try DataChannelMessage(parsing: Self.open)
        #expect(message == .open(DataChannelOpen(reliability: DataChannelReliability(ordered: false, limit: .maxRetransmits(3)),
                                                 priority: 256, label: "chat", protocol: "srtc")))
        #expect(message.serialized() == Self.open)
    }

    @Test func ackIsOneByte() throws {
        #expect(DataChannelMessage.ack.serialized() == [0x02])
        #expect(try DataChannelMessage(parsing: [0x02]) == .ack)
    }

    @Test(arguments: [
        (DataChannelReliability(ordered: true, limit: .reliable), UInt8(0x00)),
        (DataChannelReliability(ordered: false, limit: .reliable), UInt8(0x80)),
        (DataChannelReliability(ordered: true, limit: .maxRetransmits(5)), UInt8(0x01)),
        (DataChannelReliability(ordered: false, limit: .maxRetransmits(0)), UInt8(0x81)),
        (DataChannelReliability(ordered: true, limit: .maxLifetime(150)), UInt8(0x02)),
        (DataChannelReliability(ordered: false, limit: .maxLifetime(150)), UInt8(0x82)),
    ])
    func everyChannelTypeRoundTrips(reliability: DataChannelReliability, channelType: UInt8) throws {
        let open = DataChannelOpen(reliability: reliability, label: "", protocol: "")
        let bytes = DataChannelMessage.open(open).serialized()
        #expect(bytes.count == 12)
        #expect(bytes[1] == channelType)
        #expect(try DataChannelMessage(parsing: bytes) == .open(open))
    }

    @Test func namedErrors() {
        #expect(throws: DataChannelError.truncated) { try DataChannelMessage(parsing: []) }
        #expect(throws: DataChannelError.unknownMessageType(0x04)) { try DataChannelMessage(parsing: [0x04]) }
        for length in 1..<Self.open.count {
            #expect(throws: DataChannelError.truncated) { try DataChannelMessage(parsing: Array(Self.open.prefix(length))) }
        }
        var badType = Self.open
        badType[1] = 0x03
        #expect(throws: DataChannelError.unknownChannelType(0x03)) { try DataChannelMessage(parsing: badType) }
        var badText = Self.open
        badText[12] = 0xFF
        #expect(throws: DataChannelError.invalidText) { try DataChannelMessage(parsing: badText) }
    }

    @Test func seededRandomInputThrowsOrRoundTrips() {
        var random = SeededRandom(seed: 0xDCE9)
        for _ in 0..<5_000 {
            var bytes = random.bytes(Int(random.next() % 40))
            if !bytes.isEmpty, random.next() % 2 == 0 { bytes[0] = 0x03 }
            guard let message = try? DataChannelMessage(parsing: bytes) else { continue }
            // Whatever parses serializes to a message that parses to the same value.
            #expect((try? DataChannelMessage(parsing: message.serialized())) == message)
        }
    }
}
