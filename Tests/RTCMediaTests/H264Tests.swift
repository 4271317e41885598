import Testing
import TestRandom
@testable import RTCMedia

/// H.264: OpenH264 encode and decode, packetization-mode 1 packetizer and assembler (RFC 6184),
/// key-frame detection from NAL types.
@Suite struct H264Tests {
    private func encoder(width: Int = 320, height: Int = 240, bitrate: Int = 600_000) throws -> H264Encoder {
        var configuration = H264Encoder.Configuration(width: width, height: height)
        configuration.bitrate = bitrate
        return try H264Encoder(configuration: configuration)
    }

    @Test func testPatternNumbersSurviveEncodePacketizeAssembleDecode() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder()
        let decoder = try H264Decoder()
        var packetizer = H264Packetizer(maxPayloadSize: 500)
        var assembler = H264FrameAssembler()
        var sequence: UInt16 = 65_500 // wraps during the run
        var recovered: [Int?] = []
        var keys: [Bool] = []
        for number in 0..<20 {
            if number == 12 { encoder.requestKeyFrame() }
            let encoded = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            keys.append(encoded.isKeyFrame)
            #expect(H264.isKeyFrame(annexB: encoded.data) == encoded.isKeyFrame)
            let payloads = packetizer.packetize(encoded.data)
            #expect(payloads.allSatisfy { $0.count <= 500 })
            // The first payload of an IDR access unit is recognised as a key frame (SPS in a STAP-A).
            #expect(H264.isKeyFrame(payload: payloads[0]) == encoded.isKeyFrame)
            var frame: DepacketizedVideoFrame?
            for (index, payload) in payloads.enumerated() {
                let output = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: encoded.rtpTimestamp,
                                                marker: index == payloads.count - 1)
                sequence &+= 1
                if let completed = output.frame { frame = completed }
            }
            let assembled = try #require(frame, "frame \(number)")
            #expect(assembled.data == encoded.data)
            #expect(assembled.isKeyFrame == encoded.isKeyFrame)
            let decoded = try #require(try decoder.decode(assembled.data, timestampUs: encoded.timestampUs))
            #expect(decoded.width == 320 && decoded.height == 240)
            recovered.append(TestPatternReader.frameNumber(in: decoded))
        }
        #expect(recovered == (0..<20).map { $0 })
        #expect(keys.enumerated().map { $0.element == ($0.offset == 0 || $0.offset == 12) }.allSatisfy { $0 })
    }

    @Test func packetizerModesSingleStapAndFuA() {
        // SPS (7), PPS (8), a 3000-byte IDR slice (5), in Annex B with 4- and 3-byte start codes.
        let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x1F, 0xAA]
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        let idr: [UInt8] = [0x65] + (0..<2999).map { UInt8(truncatingIfNeeded: $0 | 1) }
        let stream = [0, 0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 0, 1] + idr
        var packetizer = H264Packetizer(maxPayloadSize: 1200)
        let payloads = packetizer.packetize(stream)
        // STAP-A: NRI of the parameter sets (0x60) | 24, then size-prefixed SPS and PPS.
        #expect(payloads[0] == [0x78, 0x00, 0x05] + sps + [0x00, 0x04] + pps)
        // FU-A: indicator 0x60 | 28 = 0x7C; header S=1 type 5 = 0x85, middle 0x05, end E=1 0x45.
        #expect(payloads.count == 4)
        #expect(payloads[1].prefix(2) == [0x7C, 0x85])
        #expect(payloads[2].prefix(2) == [0x7C, 0x05])
        #expect(payloads[3].prefix(2) == [0x7C, 0x45])
        #expect(payloads[1...].map { $0.count - 2 }.reduce(0, +) == 2999)
        #expect(H264.isKeyFrame(payload: payloads[0]) && H264.isKeyFrame(payload: payloads[1]))
        #expect(!H264.isKeyFrame(payload: payloads[2]))
        // A non-IDR slice that fits goes alone.
        let slice: [UInt8] = [0x41, 1, 2, 3]
        #expect(packetizer.packetize([0, 0, 1] + slice) == [slice])
        #expect(!H264.isKeyFrame(payload: slice))
    }

    @Test func aGapDiscardsTheUnitAndWithholdsDeltaFramesUntilAnIDR() throws {
        var assembler = H264FrameAssembler()
        let idr: [UInt8] = [0x65, 1, 2]
        let delta: [UInt8] = [0x41, 4, 5]
        #expect(try assembler.push(payload: idr, sequenceNumber: 1, timestamp: 100, marker: true).frame?.isKeyFrame == true)
        #expect(try assembler.push(payload: delta, sequenceNumber: 2, timestamp: 200, marker: true).frame?.data == [0, 0, 0, 1] + delta)
        // Sequence 3 lost: the next delta unit is withheld and a key frame is needed.
        let afterGap = try assembler.push(payload: delta, sequenceNumber: 4, timestamp: 300, marker: true)
        #expect(afterGap.frame == nil && afterGap.lostPackets == 1 && assembler.needsKeyFrame)
        #expect(try assembler.push(payload: delta, sequenceNumber: 5, timestamp: 400, marker: true).frame == nil)
        let recovered = try assembler.push(payload: idr, sequenceNumber: 6, timestamp: 500, marker: true)
        #expect(recovered.frame?.isKeyFrame == true && !assembler.needsKeyFrame)
    }

    @Test func malformedPayloadsThrowNamedErrors() {
        var assembler = H264FrameAssembler()
        #expect(throws: RTPPayloadError.emptyPayload) { try assembler.push(payload: [], sequenceNumber: 1, timestamp: 1, marker: false) }
        #expect(throws: RTPPayloadError.h264UnsupportedNALType(25)) {
            try assembler.push(payload: [25, 0, 0], sequenceNumber: 2, timestamp: 2, marker: false)
        }
        #expect(throws: RTPPayloadError.h264Truncated) {
            try assembler.push(payload: [24, 0, 9, 0x65], sequenceNumber: 3, timestamp: 3, marker: false)
        }
        #expect(throws: RTPPayloadError.h264Truncated) {
            // An FU-A continuation without its start.
            try assembler.push(payload: [28, 0x05, 1, 2], sequenceNumber: 4, timestamp: 4, marker: true)
        }
    }

    @Test func seededRandomPayloadsNeverCrash() {
        var random = SeededRandom(seed: 0x264)
        var assembler = H264FrameAssembler(maxFrameSize: 10_000)
        for i in 0..<5_000 {
            var payload = random.bytes(Int(random.next() % 64))
            if !payload.isEmpty { payload[0] = [24, 28, 5, 7, 1, 25][Int(random.next() % 6)] | UInt8(random.next() % 4) << 5 }
            _ = H264.isKeyFrame(payload: payload)
            _ = try? assembler.push(payload: payload, sequenceNumber: UInt16(truncatingIfNeeded: i), timestamp: UInt32(i / 3),
                                    marker: random.next() % 3 == 0)
            _ = H264.nalUnits(annexB: payload)
        }
    }
}
