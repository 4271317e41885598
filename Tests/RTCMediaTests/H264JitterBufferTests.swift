import Testing
import TestRandom
@testable import RTCMedia

/// The jitter buffer with H.264 payloads (RFC 6184 packetization-mode 1): reordered and lost
/// packets of real OpenH264 access units come out as decodable Annex B frames in order, losses
/// are NACKed and end in a key-frame request, and malformed payloads never crash it.
@Suite struct H264JitterBufferTests {
    typealias Packet = PacketizedPayload

    /// `count` test-pattern frames encoded with OpenH264 (an IDR at 0 and `keyAt`), packetized
    /// into small payloads (so most frames have FU-A fragments and the IDRs a STAP-A).
    static func packets(count: Int, keyAt: Int? = nil, firstSequence: UInt16 = 65_520) throws -> (packets: [Packet], encoded: [EncodedVideoFrame]) {
        var configuration = H264Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = 500_000
        let encoder = try H264Encoder(configuration: configuration)
        var packetizer = H264Packetizer(maxPayloadSize: 400)
        return try packetizedFrames(count: count, keyAt: keyAt, firstSequence: firstSequence,
                                    encode: { try encoder.encode($0, forceKeyFrame: $1) }, packetize: { packetizer.packetize($0.data) })
    }

    static func buffer() -> VideoJitterBuffer {
        var configuration = VideoJitterBuffer.Configuration()
        configuration.codec = .h264
        return VideoJitterBuffer(configuration: configuration)
    }

    @Test func reorderedPacketsComeOutAsTheEncodedAccessUnitsAndDecodeToTheirNumbers() throws {
        let (packets, encoded) = try Self.packets(count: 12)
        #expect(packets.count > 24, "most frames span several packets")
        // Swap neighbours throughout (sequence numbers wrap on the way).
        var order = Array(packets.indices)
        var random = SeededRandom(seed: 0x6184)
        for i in stride(from: 0, to: order.count - 1, by: 2) where random.next() % 2 == 0 { order.swapAt(i, i + 1) }
        var buffer = Self.buffer()
        var frames: [DepacketizedVideoFrame] = []
        for index in order {
            let p = packets[index]
            try buffer.insert(payload: p.payload, sequenceNumber: p.sequence, timestamp: p.timestamp, marker: p.marker)
            frames += buffer.popFrames(nowUs: 0)
        }
        #expect(frames.map(\.data) == encoded.map(\.data))
        #expect(frames.map(\.isKeyFrame) == encoded.map(\.isKeyFrame))
        let decoder = try H264Decoder()
        let numbers = try frames.map { frame -> Int? in
            try decoder.decode(frame.data, timestampUs: 0).flatMap(TestPatternReader.frameNumber(in:))
        }
        #expect(numbers == Array(0..<12))
    }

    @Test func aLostPacketIsNackedThenItsFrameGivenUpUntilTheNextIDR() throws {
        let (packets, _) = try Self.packets(count: 10, keyAt: 7)
        // Lose one packet of frame 3 (never retransmitted).
        let lost = try #require(packets.firstIndex { $0.number == 3 })
        var buffer = Self.buffer()
        var numbers: [Int] = []
        var nacked: [UInt16] = []
        var asked = false
        let decoder = try H264Decoder()
        for (index, p) in packets.enumerated() where index != lost {
            let now = Int64(p.number) * 100_000
            try buffer.insert(payload: p.payload, sequenceNumber: p.sequence, timestamp: p.timestamp, marker: p.marker)
            nacked += buffer.missingSequenceNumbers(nowUs: now)
            for frame in buffer.popFrames(nowUs: now) {
                if let picture = try decoder.decode(frame.data, timestampUs: 0), let n = TestPatternReader.frameNumber(in: picture) {
                    numbers.append(n)
                }
            }
            if p.number >= 3, buffer.shouldRequestKeyFrame(nowUs: now) { asked = true }
        }
        #expect(nacked.contains(packets[lost].sequence))
        #expect(asked, "a key frame was asked for after the loss")
        // Frames 3–6 depend on the lost one: withheld until the IDR at 7.
        #expect(numbers == [0, 1, 2, 7, 8, 9])
    }

    @Test func malformedPayloadsDropTheirFrameAndAskForAKeyFrame() throws {
        var buffer = Self.buffer()
        let (packets, _) = try Self.packets(count: 2)
        for p in packets where p.number == 0 {
            try buffer.insert(payload: p.payload, sequenceNumber: p.sequence, timestamp: p.timestamp, marker: p.marker)
        }
        #expect(buffer.popFrames(nowUs: 0).count == 1)
        #expect(throws: RTPPayloadError.emptyPayload) {
            try buffer.insert(payload: [], sequenceNumber: packets.last!.sequence &+ 1, timestamp: 1, marker: true)
        }
        // A STAP-A whose size runs past the end, as a whole frame: dropped, and a key frame wanted.
        let next = packets.first { $0.number == 1 }!.sequence
        try buffer.insert(payload: [24, 0, 40, 0x41, 1], sequenceNumber: next, timestamp: 7, marker: true)
        #expect(buffer.popFrames(nowUs: 0).isEmpty)
        #expect(buffer.needsKeyFrame)
        #expect(buffer.statistics.framesDropped == 1)
    }

    @Test func seededRandomPayloadsNeverCrash() {
        var random = SeededRandom(seed: 0x6184_2)
        var buffer = Self.buffer()
        var sequence: UInt16 = 0
        for i in 0..<20_000 {
            var payload = random.bytes(Int(random.next() % 48))
            if !payload.isEmpty { payload[0] = [24, 28, 5, 7, 1, 25, 29][Int(random.next() % 7)] | UInt8(random.next() % 4) << 5 }
            // Mostly in order, sometimes back or far ahead.
            sequence &+= [1, 1, 1, 2, 0, 65_535, 900][Int(random.next() % 7)]
            _ = try? buffer.insert(payload: payload, sequenceNumber: sequence, timestamp: UInt32(i / 4), marker: random.next() % 4 == 0)
            for frame in buffer.popFrames(nowUs: Int64(i) * 1_000) { #expect(!frame.data.isEmpty) }
            _ = buffer.missingSequenceNumbers(nowUs: Int64(i) * 1_000)
        }
        #expect(buffer.packetCount <= buffer.configuration.capacity)
    }
}
