import Testing
import TestRandom
@testable import RTCMedia

/// AV1 in the SDK's receive path: libaom temporal units cut by `AV1Packetizer`
/// (av1-rtp-spec §4.4), put back in order by the jitter buffer, depacketized there into OBUs and
/// decoded by dav1d, checked on the test pattern's frame numbers.
@Suite struct AV1JitterBufferTests {
    typealias Packet = PacketizedPayload

    /// `count` test-pattern frames encoded as AV1 (a key frame at 0 and `keyAt`), packetized into
    /// small payloads so most frames span several packets, across the sequence-number wrap.
    static func packets(count: Int, keyAt: Int? = nil, firstSequence: UInt16 = 65_500) throws -> (packets: [Packet], encoded: [EncodedVideoFrame]) {
        var configuration = AV1Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = 600_000
        let encoder = try AV1Encoder(configuration: configuration)
        var packetizer = AV1Packetizer(maxPayloadSize: 300)
        return try packetizedFrames(count: count, keyAt: keyAt, firstSequence: firstSequence,
                                    encode: { try encoder.encode($0, forceKeyFrame: $1) }, packetize: { try packetizer.packetize($0) })
    }

    static func buffer() -> VideoJitterBuffer {
        var configuration = VideoJitterBuffer.Configuration()
        configuration.codec = .av1
        return VideoJitterBuffer(configuration: configuration)
    }

    @Test func keyFramesAreKnownByNAndByTheirSequenceHeader() throws {
        let (packets, encoded) = try Self.packets(count: 3)
        #expect(encoded.map(\.isKeyFrame) == [true, false, false])
        for number in 0..<3 {
            let first = packets.first { $0.number == number }!.payload
            first.withUnsafeBytes {
                #expect(AV1.startsOBU(payload: $0))
                #expect(AV1.isKeyFrame(payload: $0) == (number == 0))
                #expect(AV1.startsWithSequenceHeader(payload: $0) == (number == 0))
            }
        }
        // Without N (a sender that does not set it), the sequence header still says key frame.
        var withoutN = packets[0].payload
        withoutN[0] &= ~0x08
        var buffer = Self.buffer()
        for p in packets where p.number == 0 {
            try buffer.insert(payload: p.sequence == packets[0].sequence ? withoutN : p.payload, sequenceNumber: p.sequence,
                              timestamp: p.timestamp, marker: p.marker)
        }
        let popped = buffer.popFrame(nowUs: 0)
        let frame = try #require(popped)
        #expect(frame.isKeyFrame)
        // A continuation (Z set) neither starts a unit nor reads as one with a sequence header.
        ([0xC0, 0x10, 0x0A] as [UInt8]).withUnsafeBytes { bytes in
            #expect(!AV1.startsOBU(payload: bytes))
            #expect(!AV1.startsWithSequenceHeader(payload: bytes))
        }
        // W = 1: the only element has no length; its OBU header is the second byte (type 1).
        ([0x10, 0x0A, 0x00] as [UInt8]).withUnsafeBytes { #expect(AV1.startsWithSequenceHeader(payload: $0)) }
    }

    @Test func reorderedPacketsDecodeToTheirNumbersInOrder() throws {
        let (packets, encoded) = try Self.packets(count: 15)
        #expect(packets.count > 30, "most frames span several packets")
        var order = Array(packets.indices)
        var random = SeededRandom(seed: 0xA1)
        for i in stride(from: 0, to: order.count - 1, by: 2) where random.next() % 2 == 0 { order.swapAt(i, i + 1) }
        var buffer = Self.buffer()
        var frames: [DepacketizedVideoFrame] = []
        for index in order {
            let p = packets[index]
            try buffer.insert(payload: p.payload, sequenceNumber: p.sequence, timestamp: p.timestamp, marker: p.marker)
            frames += buffer.popFrames(nowUs: 0)
        }
        #expect(frames.count == 15)
        #expect(frames.map(\.isKeyFrame) == encoded.map(\.isKeyFrame))
        let decoder = try VideoCodec.av1.makeDecoder()
        let numbers = try frames.map { try decoder.decodeIntact($0.encodedFrame).flatMap(TestPatternReader.frameNumber(in:)) }
        #expect(numbers == Array(0..<15))
    }

    @Test func aLostPacketIsNackedThenEndsInAKeyFrameRequestAndDecodingResumesAtTheNextKeyFrame() throws {
        let (packets, _) = try Self.packets(count: 12, keyAt: 8)
        // A packet inside frame 4 that is not its first: the rest of the unit reads as complete
        // from a later Z-clear payload, and must still not reach the decoder.
        let frame4 = packets.indices.filter { packets[$0].number == 4 }
        let lost = frame4.count > 1 ? frame4[1] : frame4[0]
        var buffer = Self.buffer()
        var numbers: [Int] = []
        var asked = false, nacked: [UInt16] = []
        let decoder = try AV1Decoder()
        for (index, p) in packets.enumerated() where index != lost {
            let now = Int64(p.number) * 100_000
            try buffer.insert(payload: p.payload, sequenceNumber: p.sequence, timestamp: p.timestamp, marker: p.marker)
            nacked += buffer.missingSequenceNumbers(nowUs: now)
            for frame in buffer.popFrames(nowUs: now) {
                if let picture = try decoder.decodeIntact(frame.encodedFrame), let number = TestPatternReader.frameNumber(in: picture) {
                    numbers.append(number)
                }
            }
            asked = asked || buffer.shouldRequestKeyFrame(nowUs: now)
        }
        #expect(nacked.contains(packets[lost].sequence))
        #expect(asked)
        #expect(numbers.prefix(4) == [0, 1, 2, 3])
        #expect(!numbers.contains(4))
        #expect(numbers.suffix(4) == [8, 9, 10, 11], "\(numbers)")
    }

    @Test func malformedAV1PayloadsAreRefusedOrDropped() throws {
        var buffer = Self.buffer()
        #expect(throws: RTPPayloadError.emptyPayload) {
            try buffer.insert(payload: [], sequenceNumber: 1, timestamp: 0, marker: true)
        }
        // One payload whose element length runs past its end: stored, but its frame never comes out.
        try buffer.insert(payload: [0x08, 0x7F, 0x0A], sequenceNumber: 2, timestamp: 90, marker: true)
        let popped = buffer.popFrame(nowUs: 0)
        #expect(popped == nil)
        var random = SeededRandom(seed: 0xDA1D)
        for sequence in 3..<2_003 {
            let payload = (0..<Int(random.next() % 40 + 1)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = try? buffer.insert(payload: payload, sequenceNumber: UInt16(sequence), timestamp: UInt32(sequence / 3),
                                   marker: random.next() % 3 == 0)
            _ = buffer.popFrames(nowUs: Int64(sequence) * 10_000)
        }
        #expect(buffer.packetCount <= VideoJitterBuffer.Configuration().capacity)
    }
}
