import Testing
import TestRandom
@testable import RTCMedia

/// VP9 in the SDK's media path: libvpx's VP9 encoder, `VP9Packetizer` (RFC 9628 descriptors), the
/// jitter buffer with VP9 payloads and libvpx's VP9 decoder, checked on the test pattern's frame
/// numbers.
@Suite struct VP9CodecTests {
    typealias Packet = PacketizedPayload

    /// `count` test-pattern frames encoded as VP9 (a key frame at 0 and `keyAt`), packetized into
    /// small payloads so most frames span several packets.
    static func packets(count: Int, keyAt: Int? = nil, firstSequence: UInt16 = 65_500) throws -> (packets: [Packet], encoded: [EncodedVideoFrame]) {
        var configuration = VPXEncoder.Configuration(width: 320, height: 240, codec: .vp9)
        configuration.bitrate = 600_000
        let encoder = try VPXEncoder(configuration: configuration)
        var packetizer = VP9Packetizer(maxPayloadSize: 300, initialPictureID: 0x7FFE)
        return try packetizedFrames(count: count, keyAt: keyAt, firstSequence: firstSequence,
                                    encode: { try encoder.encode($0, forceKeyFrame: $1) }, packetize: { packetizer.packetize($0) })
    }

    static func buffer() -> VideoJitterBuffer {
        var configuration = VideoJitterBuffer.Configuration()
        configuration.codec = .vp9
        return VideoJitterBuffer(configuration: configuration)
    }

    @Test func descriptorsCarryThePictureIdAndTheFrameBoundaries() throws {
        let (packets, encoded) = try Self.packets(count: 3)
        #expect(encoded.map(\.isKeyFrame) == [true, false, false])
        for number in 0..<3 {
            let frame = packets.filter { $0.number == number }
            let descriptors = try frame.map { try VP9PayloadDescriptor.parse($0.payload).descriptor }
            // The picture id wraps from 0x7FFF to 0 (15 bits).
            #expect(descriptors.allSatisfy { $0.pictureID == [0x7FFE, 0x7FFF, 0][number] && $0.longPictureID })
            #expect(descriptors.map(\.beginningOfFrame) == [true] + Array(repeating: false, count: frame.count - 1))
            #expect(descriptors.map(\.endOfFrame) == Array(repeating: false, count: frame.count - 1) + [true])
            #expect(descriptors.allSatisfy { $0.interPicturePredicted == (number != 0) && $0.spatialID == nil && !$0.flexibleMode })
            #expect(VP9.isKeyFrame(payload: frame[0].payload) == (number == 0))
            #expect(frame.allSatisfy { $0.payload.count <= 300 })
        }
    }

    @Test func reorderedPacketsDecodeToTheirNumbersInOrder() throws {
        let (packets, encoded) = try Self.packets(count: 15)
        #expect(packets.count > 30, "most frames span several packets")
        var order = Array(packets.indices)
        var random = SeededRandom(seed: 0x9628)
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
        let decoder = try VideoCodec.vp9.makeDecoder()
        let numbers = try frames.map { try decoder.decodeIntact($0.encodedFrame).flatMap(TestPatternReader.frameNumber(in:)) }
        #expect(numbers == Array(0..<15))
    }

    @Test func aLostPacketEndsInAKeyFrameRequestAndDecodingResumesAtTheNextKeyFrame() throws {
        let (packets, _) = try Self.packets(count: 12, keyAt: 8)
        let lost = try #require(packets.firstIndex { $0.number == 4 })
        var buffer = Self.buffer()
        var numbers: [Int] = []
        var asked = false
        let decoder = try VPXDecoder(codec: .vp9)
        for (index, p) in packets.enumerated() where index != lost {
            let now = Int64(p.number) * 100_000
            try buffer.insert(payload: p.payload, sequenceNumber: p.sequence, timestamp: p.timestamp, marker: p.marker)
            for frame in buffer.popFrames(nowUs: now) {
                if let picture = try decoder.decodeIntact(frame.encodedFrame), let number = TestPatternReader.frameNumber(in: picture) {
                    numbers.append(number)
                }
            }
            asked = asked || buffer.shouldRequestKeyFrame(nowUs: now)
        }
        #expect(asked)
        #expect(numbers.prefix(4) == [0, 1, 2, 3])
        #expect(!numbers.contains(4))
        #expect(numbers.suffix(4) == [8, 9, 10, 11], "\(numbers)")
    }

    @Test func theVP9EncoderRefusesACodecItDoesNotHave() {
        #expect(throws: VP8CodecError.self) { try VPXEncoder(configuration: .init(width: 64, height: 64, codec: .h264)) }
        #expect(throws: VP8CodecError.self) { try VPXDecoder(codec: .h264) }
    }
}
