import Testing
@testable import RTCWire

/// SR, RR, SDES and BYE (RFC 3550 §6.4–6.6).
@Suite struct RTCPReportTests {
    @Test func parsesSenderReportFieldByField() throws {
        let report = try SenderReport(parsing: RTCPFixtures.senderReport)
        #expect(report.ssrc == 0x902F_9E2E)
        #expect(report.ntpTime.rawValue == 0xE69B_4C2E_8000_0000)
        #expect(report.rtpTime == 90_000 && report.packetCount == 100 && report.octetCount == 15_000)
        #expect(report.reports == [ReceptionReport(
            ssrc: 0x0102_0304, fractionLost: 64, totalLost: -2, lastSequenceNumber: 0x0001_0010,
            jitter: 32, lastSenderReport: 0xABCD_EF01, delay: 0x0001_8000)])
        #expect(report.profileExtensions.isEmpty)
    }

    @Test func parsesReceiverReport() throws {
        let report = try ReceiverReport(parsing: RTCPFixtures.receiverReport)
        #expect(report.ssrc == 1)
        #expect(report.reports.map(\.ssrc) == [0x1122_3344])
        #expect(report.reports[0].totalLost == 5 && report.reports[0].lastSequenceNumber == 0x1234)
    }

    @Test func emptyReceiverReportIsEightBytes() {
        #expect(ReceiverReport(ssrc: 7).serialize() == [
            0x80, 0xC9, 0x00, 0x01,  // V=2 RC=0 | PT=201 | length=1
            0x00, 0x00, 0x00, 0x07,  // SSRC=7
        ])
    }

    @Test func reportKeepsProfileExtensionsAsWholeWords() throws {
        let report = ReceiverReport(ssrc: 1, profileExtensions: [0xAA, 0xBB, 0xCC, 0xDD])
        #expect(try ReceiverReport(parsing: report.serialize()) == report)
    }

    @Test func parsesSourceDescription() throws {
        let sdes = try SourceDescription(parsing: RTCPFixtures.sourceDescription)
        #expect(sdes.chunks.count == 1)
        #expect(sdes.chunks[0].source == 0x902F_9E2E)
        #expect(sdes.chunks[0].items == [.cname("abc")])
        #expect(sdes.chunks[0].items[0].text == "abc")
    }

    @Test func sdesChunkEndingOnABoundaryGetsAFullWordOfNulls() {
        // Items take 8 bytes ("abcdef" + type + length), so the null terminator needs another word.
        let sdes = SourceDescription(chunks: [
            .init(source: 1, items: [.cname("abcdef")]),
            .init(source: 2, items: [SDESItem(type: .tool, text: "x"), SDESItem(type: .note, text: "")]),
        ])
        #expect(sdes.serialize() == [
            0x82, 0xCA, 0x00, 0x07,  // V=2 SC=2 | PT=202 | length=7 (32 bytes)
            0x00, 0x00, 0x00, 0x01,  // chunk 1: SSRC=1
            0x01, 0x06, 0x61, 0x62,  // CNAME len=6 "ab
            0x63, 0x64, 0x65, 0x66,  // cdef"
            0x00, 0x00, 0x00, 0x00,  // null terminator + padding
            0x00, 0x00, 0x00, 0x02,  // chunk 2: SSRC=2
            0x06, 0x01, 0x78, 0x07,  // TOOL len=1 "x" | NOTE
            0x00, 0x00, 0x00, 0x00,  // NOTE len=0 | null terminator + padding
        ])
    }

    @Test func parsesGoodbyeWithReason() throws {
        let bye = try Goodbye(parsing: RTCPFixtures.goodbye)
        #expect(bye.sources == [0x902F_9E2E])
        #expect(bye.reasonText == "bye")
        #expect(Goodbye(sources: [1, 2]).serialize() == [
            0x82, 0xCB, 0x00, 0x02,  // V=2 SC=2 | PT=203 | length=2
            0x00, 0x00, 0x00, 0x01,  // SSRC 1
            0x00, 0x00, 0x00, 0x02,  // SSRC 2
        ])
    }

    @Test(arguments: [
        RTCPFixtures.senderReport, RTCPFixtures.receiverReport, RTCPFixtures.sourceDescription, RTCPFixtures.goodbye,
    ])
    func reportsRoundTripByteForByte(fixture: [UInt8]) throws {
        let packet = try RTCPPacket(parsing: fixture)
        #expect(packet.serializedSize == fixture.count)
        #expect(packet.serialize() == fixture)
    }

    @Test func ntpTimeConvertsUnixSecondsAndMiddleBits() {
        let time = NTPTime(unixSeconds: 1.5)
        #expect(time.rawValue == (UInt64(2_208_988_801) << 32 | 0x8000_0000))
        #expect(time.unixSeconds == 1.5)
        #expect(NTPTime(rawValue: 0x1122_3344_5566_7788).middle32 == 0x3344_5566)
    }
}
