import Testing
@testable import RTCMedia

/// The AV1 RTP payload format (av1-rtp-spec §4.4, §5): libaom's temporal units packetized (no
/// temporal delimiter, OBUs without obu_size, long OBUs split with Y/Z), reassembled and decoded
/// by dav1d with the pattern's numbers; hand-made payloads for the aggregation header's cases;
/// malformed payloads refused with named errors; random payloads never crash.
struct AV1PayloadTests {
    @Test func libaomUnitsSurvivePacketizingAndDecodeInOrder() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var configuration = AV1Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = 600_000
        let encoder = try AV1Encoder(configuration: configuration)
        let decoder = try AV1Decoder()
        // Small payloads: key frames split over many packets, OBUs across packet boundaries.
        var packetizer = AV1Packetizer(maxPayloadSize: 300)
        var assembler = AV1FrameAssembler()
        var sequence: UInt16 = 65_500, numbers: [Int?] = [], split = 0
        for number in 0 ..< 30 {
            let encoded = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            let payloads = try packetizer.packetize(encoded)
            #expect(payloads.allSatisfy { $0.count <= 300 })
            // The first payload of the key frame has N; no payload carries a temporal delimiter.
            #expect((payloads[0][0] & 0x08 != 0) == (number == 0))
            split += payloads.filter { $0[0] & 0x40 != 0 }.count
            for (index, payload) in payloads.enumerated() {
                let output = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: UInt32(number * 3_000),
                                                marker: index == payloads.count - 1)
                sequence &+= 1
                if let frame = output.frame {
                    #expect(frame.isKeyFrame == (number == 0))
                    numbers.append(try decoder.decodeIntact(frame.encodedFrame).flatMap(TestPatternReader.frameNumber(in:)))
                }
            }
        }
        #expect(split > 0, "some OBU was split across payloads")
        #expect(numbers == (0 ..< 30).map { $0 })
    }

    /// A sequence header (type 1) and a frame (type 6) in one payload with W = 2 (the last element
    /// without its length), then a frame split over two payloads (Y, then Z) with W = 0.
    @Test func handMadePayloadsGiveTheOBUsWithTheirSizes() throws {
        var assembler = AV1FrameAssembler()
        // Z=0 Y=0 W=2 N=1 | len 3, seq header 0x08 + 2 bytes | frame 0x30 + 3 bytes (no length)
        let first: [UInt8] = [0x28, 0x03, 0x08, 0xAA, 0xBB, 0x30, 0x01, 0x02, 0x03]
        let out = try assembler.push(payload: first, sequenceNumber: 1, timestamp: 10, marker: true)
        // Each OBU with S set and its obu_size.
        #expect(out.frame?.data == [0x0A, 0x02, 0xAA, 0xBB, 0x32, 0x03, 0x01, 0x02, 0x03])
        #expect(out.frame?.isKeyFrame == true)
        // Z=0 Y=1 W=0 | len 3: frame 0x30 + 2 bytes … then Z=1 Y=0 W=0 | len 2: 2 more bytes.
        _ = try assembler.push(payload: [0x40, 0x03, 0x30, 0x11, 0x12], sequenceNumber: 2, timestamp: 20, marker: false)
        let joined = try assembler.push(payload: [0x80, 0x02, 0x13, 0x14], sequenceNumber: 3, timestamp: 20, marker: true)
        #expect(joined.frame?.data == [0x32, 0x04, 0x11, 0x12, 0x13, 0x14])
    }

    @Test func malformedPayloadsAreRefusedWithNamedErrors() {
        let cases: [([UInt8], RTPPayloadError)] = [
            ([], .emptyPayload),
            ([0x00, 0x05, 0x30, 0x01], .av1MalformedOBU),           // length 5, 2 bytes left
            ([0x00, 0x01, 0xB0], .av1MalformedOBU),                 // forbidden bit set
            ([0x00, 0x00], .av1MalformedOBU),                       // an empty element
            ([0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], .av1MalformedOBU),  // LEB128 past 8 bytes
            ([0x80, 0x01, 0x30], .av1UnexpectedContinuation),       // Z with nothing open
            ([0x00, 0x02, 0x32, 0x05], .av1MalformedOBU),           // obu_size 5 for 0 bytes
            ([0x00], .av1MalformedOBU),                             // no element at all
        ]
        for (payload, error) in cases {
            var assembler = AV1FrameAssembler()
            #expect(throws: error, "\(payload)") { try assembler.push(payload: payload, sequenceNumber: 1, timestamp: 0, marker: true) }
        }
        #expect(throws: RTPPayloadError.av1MalformedOBU) {
            var packetizer = AV1Packetizer()
            try [UInt8]([0x30, 0x01]).withUnsafeBytes { try packetizer.packetize($0, isKeyFrame: false) { _, _ in } }  // no obu_size
        }
    }

    @Test func randomPayloadsNeverCrashAndUnitsStayBounded() {
        var random = SystemRandomNumberGenerator()
        var assembler = AV1FrameAssembler(maxFrameSize: 4_096)
        for sequence in 0 ..< 5_000 {
            let payload = (0 ..< Int.random(in: 0 ... 64, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            if let frame = try? assembler.push(payload: payload, sequenceNumber: UInt16(sequence), timestamp: UInt32(sequence / 3),
                                               marker: sequence % 3 == 2).frame {
                #expect(frame.data.count <= 4_096)
            }
        }
    }

    @Test func theSequenceHeaderOfATemporalUnitIsFoundWithItsSize() {
        let unit: [UInt8] = [
            0x12, 0x00,                   // temporal delimiter: type 2, S=1, obu_size 0
            0x0A, 0x03, 0xAA, 0xBB, 0xCC, // sequence header: type 1, S=1, obu_size 3, payload
            0x32, 0x02, 0x01, 0x02,       // frame: type 6, S=1, obu_size 2
        ]
        #expect(unit.withUnsafeBytes { AV1OBU.sequenceHeader(inTemporalUnit: $0) } == 2 ..< 7)
        // With an extension byte (X=1): the header is two bytes.
        let extended: [UInt8] = [0x0E, 0x08, 0x01, 0xAA]
        #expect(extended.withUnsafeBytes { AV1OBU.sequenceHeader(inTemporalUnit: $0) } == 0 ..< 4)
        // None in a delta unit; none when an OBU before it has no size field, or its size runs past the end.
        #expect([UInt8]([0x32, 0x01, 0x00]).withUnsafeBytes { AV1OBU.sequenceHeader(inTemporalUnit: $0) } == nil)
        #expect([UInt8]([0x30, 0x0A, 0x01, 0xAA]).withUnsafeBytes { AV1OBU.sequenceHeader(inTemporalUnit: $0) } == nil)
        #expect([UInt8]([0x0A, 0x05, 0xAA]).withUnsafeBytes { AV1OBU.sequenceHeader(inTemporalUnit: $0) } == nil)
        // An empty sequence header is not one.
        #expect([UInt8]([0x0A, 0x00]).withUnsafeBytes { AV1OBU.sequenceHeader(inTemporalUnit: $0) } == nil)
        #expect([UInt8]().withUnsafeBytes { AV1OBU.sequenceHeader(inTemporalUnit: $0) } == nil)
        // Random units never crash, and what is found lies inside the unit and is a sequence header.
        var random = SystemRandomNumberGenerator()
        for _ in 0 ..< 5_000 {
            let bytes = (0 ..< Int.random(in: 0 ... 48, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            if let range = bytes.withUnsafeBytes({ AV1OBU.sequenceHeader(inTemporalUnit: $0) }) {
                #expect(range.upperBound <= bytes.count && AV1OBU.type(bytes[range.lowerBound]) == AV1OBU.sequenceHeader)
            }
        }
    }
}
