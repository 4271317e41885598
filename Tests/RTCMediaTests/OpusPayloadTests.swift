import COpus
import Testing
@testable import RTCMedia
import TestRandom

/// TOC fixtures follow RFC 6716 §3.1 (Table 2) and the framing rules R1–R7 of §3.4.
@Suite struct OpusPayloadTests {
    @Test func code0SilkWidebandTwentyMilliseconds() throws {
        // TOC 0x48 = config 9 (SILK WB 20 ms), s=0, c=0; then one 3-byte frame.
        let info = try OpusPayload.depacketize([0x48, 0xAA, 0xBB, 0xCC])
        #expect(info.configuration == 9 && info.mode == .silk && info.bandwidth == .wide)
        #expect(info.frameDurationUs == 20_000 && !info.isStereo && info.frameCount == 1)
        #expect(info.samplesAt48kHz == 960)
    }

    @Test func code1TwoEqualCELTFrames() throws {
        // TOC 0xFD = config 31 (CELT FB 20 ms), s=1, c=1; 4 bytes → two 2-byte frames.
        let info = try OpusPayload.depacketize([0xFD, 1, 2, 3, 4])
        #expect(info.mode == .celt && info.bandwidth == .full && info.isStereo && info.frameCount == 2)
        #expect(info.durationUs == 40_000)
        // Odd remainder breaks R3.
        #expect(throws: RTPPayloadError.opusOddCBRLength) { try OpusPayload.depacketize([0xFD, 1, 2, 3]) }
    }

    @Test func code2ExplicitFirstLength() throws {
        // TOC 0x7A = config 15 (Hybrid FB 20 ms), s=0, c=2; first frame length 2, then 2 + 1 bytes.
        let info = try OpusPayload.depacketize([0x7A, 0x02, 0xA, 0xB, 0xC])
        #expect(info.mode == .hybrid && info.frameCount == 2)
        // Two-byte length: 252 + 4·1 = 256 bytes, more than the 3 present (R4).
        #expect(throws: RTPPayloadError.opusTruncated) { try OpusPayload.depacketize([0x7A, 0xFC, 0x01, 1, 2, 3]) }
        #expect(throws: RTPPayloadError.opusTruncated) { try OpusPayload.depacketize([0x7A]) }
    }

    @Test func code3CBRAndVBRWithPadding() throws {
        // TOC 0x03 = config 0 (SILK NB 10 ms), c=3. Count byte 0x03: v=0 p=0 M=3; 6 bytes → three 2-byte frames.
        #expect(try OpusPayload.depacketize([0x03, 0x03, 1, 2, 3, 4, 5, 6]).frameCount == 3)
        #expect(throws: RTPPayloadError.opusCBRLengthMismatch) { try OpusPayload.depacketize([0x03, 0x03, 1, 2, 3, 4, 5]) }
        // Count byte 0xC2: v=1 p=1 M=2; padding length 1; first frame length 1; frame A, frame B B, one pad byte.
        #expect(try OpusPayload.depacketize([0x03, 0xC2, 0x01, 0x01, 0xA, 0xB, 0xB, 0x00]).frameCount == 2)
        // M=0 and 13 × 10 ms > 120 ms both break R5.
        #expect(throws: RTPPayloadError.opusInvalidFrameCount) { try OpusPayload.depacketize([0x03, 0x00]) }
        #expect(throws: RTPPayloadError.opusInvalidFrameCount) { try OpusPayload.depacketize([0x03, 0x0D]) }
        // Padding 255 → 254 bytes and more to come, but the packet ends.
        #expect(throws: RTPPayloadError.opusTruncated) { try OpusPayload.depacketize([0x03, 0x41, 0xFF]) }
    }

    @Test func emptyAndOversizedPackets() {
        #expect(throws: RTPPayloadError.emptyPayload) { try OpusPayload.depacketize([]) }
        #expect(throws: RTPPayloadError.opusFrameTooLong) {
            try OpusPayload.depacketize([0x48] + [UInt8](repeating: 0, count: 1_276))
        }
    }

    @Test func realEncoderOutputValidates() throws {
        let encoder = try OpusEncoder()
        var tone = SineToneGenerator(frequency: 300)
        for _ in 0..<10 {
            let info = try OpusPayload.depacketize(try encoder.encode(tone.next(frameCount: 960)))
            #expect(info.samplesAt48kHz == 960)
        }
    }

    /// libopus's own `opus_packet_parse` must agree on which random packets are valid and how many frames they hold.
    @Test func seededRandomPacketsAgreeWithLibopus() {
        var random = SeededRandom(seed: 6716)
        var frames = [UnsafePointer<UInt8>?](repeating: nil, count: 48)
        var sizes = [Int16](repeating: 0, count: 48)
        var validCount = 0
        for _ in 0..<50_000 {
            var packet = random.bytes(Int.random(in: 1...24, using: &random))
            if Bool.random(using: &random) { packet[0] |= 0x03 }   // favour the complex code 3
            var toc: UInt8 = 0, offset: Int32 = 0
            let reference = opus_packet_parse(packet, Int32(packet.count), &toc, &frames, &sizes, &offset)
            let ours = try? OpusPacketInfo(packet: packet)
            #expect((reference >= 0) == (ours != nil), "packet \(packet)")
            if let ours, reference >= 0 { #expect(ours.frameCount == Int(reference)); validCount += 1 }
        }
        #expect(validCount > 1_000)
    }
}
