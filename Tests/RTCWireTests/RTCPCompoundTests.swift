import Testing
@testable import RTCWire

/// Compound RTCP (RFC 3550 §6.1) and the non-allocating compound view.
@Suite struct RTCPCompoundTests {
    @Test func parsesSenderReportPlusSDES() throws {
        let bytes = RTCPFixtures.senderReport + RTCPFixtures.sourceDescription
        let packets = try RTCPCompound.parse(bytes)
        #expect(packets.count == 2)
        guard case .senderReport(let sr) = packets[0], case .sourceDescription(let sdes) = packets[1] else {
            Issue.record("expected SR then SDES, got \(packets)")
            return
        }
        #expect(sr.packetCount == 100)
        #expect(sdes.chunks[0].items == [.cname("abc")])
        #expect(RTCPCompound.serialize(packets) == bytes)
    }

    @Test func parsesReceiverReportPlusREMBPlusNack() throws {
        let bytes = RTCPFixtures.receiverReport + RTCPFixtures.remb + RTCPFixtures.nack
        let packets = try RTCPCompound.parse(bytes)
        #expect(packets == [
            .receiverReport(try ReceiverReport(parsing: RTCPFixtures.receiverReport)),
            .remb(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 1_000_000, ssrcs: [0x1122_3344])),
            .nack(TransportLayerNack(senderSSRC: 1, mediaSSRC: 0x1122_3344, lost: [100, 101, 103])),
        ])
        #expect(RTCPCompound.serializedSize(packets) == bytes.count)
        #expect(RTCPCompound.serialize(packets) == bytes)
    }

    @Test func keepsUnknownPacketTypesByteForByte() throws {
        let app: [UInt8] = [
            0x80, 0xCC, 0x00, 0x02,  // V=2 subtype=0 | PT=204 (APP) | length=2
            0x00, 0x00, 0x00, 0x01,  // SSRC
            0x54, 0x45, 0x53, 0x54,  // name "TEST"
        ]
        let packets = try RTCPCompound.parse(RTCPFixtures.pictureLossIndication + app)
        #expect(packets.count == 2)
        #expect(packets[1] == .unknown(try RTCPRawPacket(parsing: app)))
        #expect(RTCPCompound.serialize(packets) == RTCPFixtures.pictureLossIndication + app)
    }

    @Test func compoundViewRoutesBySSRCWithoutParsing() throws {
        let bytes = RTCPFixtures.receiverReport + RTCPFixtures.pictureLossIndication + RTCPFixtures.transportCC
        try bytes.withUnsafeBytes { raw in
            let view = try RTCPCompoundView(raw)
            #expect(view.map(\.header.packetType) == [201, 206, 205])
            #expect(view.map(\.senderSSRC) == [1, 1, 1])
            #expect(view.map(\.mediaSSRC) == [nil, 0x1122_3344, 0x1122_3344])
            #expect(view.map(\.bytes.count) == [32, 12, 28])
        }
    }

    @Test func everyTypeRoundTripsThroughTheEnum() throws {
        let bytes = RTCPFixtures.all.flatMap { $0 }
        let packets = try RTCPCompound.parse(bytes)
        #expect(packets.count == RTCPFixtures.all.count)
        #expect(RTCPCompound.serialize(packets) == bytes)
        var buffer = [UInt8](repeating: 0, count: bytes.count + 8)
        let written = buffer.withUnsafeMutableBytes { RTCPCompound.serialize(packets, into: $0) }
        #expect(written == bytes.count && Array(buffer.prefix(written)) == bytes)
    }
}
