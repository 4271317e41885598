import Testing
@testable import RTCWire

/// NACK, PLI, FIR and REMB (RFC 4585 §6, RFC 5104 §4.3.1, draft-alvestrand-rmcat-remb).
@Suite struct RTCPFeedbackTests {
    @Test func parsesNackAndExpandsLostNumbers() throws {
        let nack = try TransportLayerNack(parsing: RTCPFixtures.nack)
        #expect(nack.senderSSRC == 1 && nack.mediaSSRC == 0x1122_3344)
        #expect(nack.pairs == [.init(packetID: 100, lostBitmask: 0b101)])
        #expect(nack.lostSequenceNumbers == [100, 101, 103])
        #expect(TransportLayerNack(senderSSRC: 1, mediaSSRC: 0x1122_3344, lost: [103, 100, 101, 100]).serialize()
            == RTCPFixtures.nack)
    }

    @Test func nackPairsSpanSixteenAfterThePIDAndWrap() {
        let pairs = TransportLayerNack.pairs(lost: [65535, 0, 15, 16, 40])
        #expect(pairs == [
            .init(packetID: 65535, lostBitmask: 0b1000_0000_0000_0001),  // 0 (bit 0), 15 (bit 15)
            .init(packetID: 16), .init(packetID: 40),
        ])
        let nack = TransportLayerNack(senderSSRC: 0, mediaSSRC: 0, pairs: pairs)
        #expect(nack.lostSequenceNumbers == [65535, 0, 15, 16, 40])
    }

    @Test func parsesPictureLossIndication() throws {
        let pli = try PictureLossIndication(parsing: RTCPFixtures.pictureLossIndication)
        #expect(pli == PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1122_3344))
    }

    @Test func parsesFullIntraRequest() throws {
        let fir = try FullIntraRequest(parsing: RTCPFixtures.fullIntraRequest)
        #expect(fir.senderSSRC == 1 && fir.mediaSSRC == 0)
        #expect(fir.entries == [.init(ssrc: 0x1122_3344, sequenceNumber: 7)])
    }

    @Test func parsesREMBExponentAndMantissa() throws {
        let remb = try ReceiverEstimatedMaxBitrate(parsing: RTCPFixtures.remb)
        #expect(remb.bitrate == 1_000_000)
        #expect(remb.ssrcs == [0x1122_3344])
        #expect(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 1_000_000, ssrcs: [0x1122_3344]).serialize()
            == RTCPFixtures.remb)
    }

    @Test(arguments: [
        (UInt64(0), UInt64(0)), (262_143, 262_143), (262_144, 262_144), (1_000_001, 1_000_000),
        (3_000_000_000, 2_999_992_320), (UInt64.max, ReceiverEstimatedMaxBitrate.maximumBitrate),
    ])
    func rembRoundsBitrateDownTo18SignificantBits(bitrate: UInt64, written: UInt64) throws {
        let remb = ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: bitrate, ssrcs: [])
        #expect(try ReceiverEstimatedMaxBitrate(parsing: remb.serialize()).bitrate == written)
    }

    @Test func rembWithHugeExponentClampsInsteadOfOverflowing() throws {
        var bytes = RTCPFixtures.remb
        bytes[17] = 0xFF  // exp=63, mantissa high bits 11
        #expect(try ReceiverEstimatedMaxBitrate(parsing: bytes).bitrate == ReceiverEstimatedMaxBitrate.maximumBitrate)
    }

    @Test(arguments: [
        RTCPFixtures.nack, RTCPFixtures.pictureLossIndication, RTCPFixtures.fullIntraRequest, RTCPFixtures.remb,
    ])
    func feedbackRoundTripsByteForByte(fixture: [UInt8]) throws {
        #expect(try RTCPPacket(parsing: fixture).serialize() == fixture)
    }

    @Test func otherApplicationFeedbackStaysRaw() throws {
        var bytes = RTCPFixtures.remb
        bytes[12] = 0x41  // "AEMB": not REMB
        let packet = try RTCPPacket(parsing: bytes)
        #expect(packet == .unknown(try RTCPRawPacket(parsing: bytes)))
        #expect(packet.serialize() == bytes)
    }
}
