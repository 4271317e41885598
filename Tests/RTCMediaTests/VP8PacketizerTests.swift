import Testing
@testable import RTCMedia
import TestRandom

@Suite struct VP8PacketizerTests {
    /// A fake frame whose bytes are distinct enough to catch reordering.
    private func frame(_ length: Int, key: Bool = false) -> [UInt8] {
        var bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        if length >= 10 {
            // VP8 frame tag with P = 0 and the key-frame start code, or P = 1.
            bytes[0] = key ? 0x50 : 0x51
            if key { bytes[3] = 0x9D; bytes[4] = 0x01; bytes[5] = 0x2A }
        }
        return bytes
    }

    @Test(arguments: [(1, 1), (100, 1), (1_196, 1), (1_197, 2), (2_392, 2), (2_393, 3), (30_000, 26)])
    func splitsIntoEvenPayloadsUnderTheMTU(length: Int, expectedCount: Int) throws {
        var packetizer = VP8Packetizer(initialPictureID: 0x7FFF)
        let payloads = packetizer.packetize(frame(length))
        #expect(payloads.count == expectedCount)
        #expect(payloads.allSatisfy { $0.count <= 1_200 })
        let sizes = payloads.map(\.count)
        #expect(sizes.max()! - sizes.min()! <= 1, "slices are even")
        // Descriptor: X=1 S=1 (first only) PID=0, I=1, M=1 PictureID 0x7FFF.
        #expect(Array(payloads[0][0..<4]) == [0x90, 0x80, 0xFF, 0xFF])
        for payload in payloads.dropFirst() { #expect(Array(payload[0..<4]) == [0x80, 0x80, 0xFF, 0xFF]) }
        #expect(payloads.flatMap { $0[4...] } == frame(length))
        // PictureID wraps from 0x7FFF to 0 on the next frame.
        #expect(packetizer.pictureID == 0)
        #expect(Array(packetizer.packetize([1])[0][0..<4]) == [0x90, 0x80, 0x80, 0x00])
    }

    @Test func packetizeThenAssembleRebuildsIdenticalFrames() throws {
        var packetizer = VP8Packetizer(initialPictureID: 100)
        var assembler = VP8FrameAssembler()
        var sequence: UInt16 = 65_530   // wraps during the run
        let frames = [frame(5_000, key: true)] + [10, 1_196, 1_197, 3_000, 12_345].map { frame($0) }
        var rebuilt: [DepacketizedVideoFrame] = []
        for (index, data) in frames.enumerated() {
            let timestamp = UInt32(index * 3_000)
            let payloads = packetizer.packetize(data)
            for (position, payload) in payloads.enumerated() {
                let output = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: timestamp,
                                                marker: position == payloads.count - 1)
                #expect(output.lostPackets == 0)
                if let frame = output.frame { rebuilt.append(frame) }
                sequence &+= 1
            }
        }
        #expect(rebuilt.map(\.data) == frames)
        #expect(rebuilt.map(\.pictureID) == (100..<106).map { $0 })
        #expect(rebuilt.map(\.isKeyFrame) == [true, false, false, false, false, false])
        #expect(rebuilt[0].firstSequenceNumber == 65_530 && rebuilt[0].packetCount == 5)
        #expect(rebuilt.map(\.rtpTimestamp) == [0, 3_000, 6_000, 9_000, 12_000, 15_000])
        #expect(!assembler.needsKeyFrame && assembler.lostPacketCount == 0)
    }

    @Test func lostPacketIsAGapAndDeltaFramesWaitForAKeyFrame() throws {
        var packetizer = VP8Packetizer()
        var assembler = VP8FrameAssembler()
        var sequence: UInt16 = 0
        var outputs: [VP8FrameAssembler.Output] = []
        let frames = [frame(3_000, key: true), frame(3_000), frame(500), frame(2_000, key: true)]
        for (index, data) in frames.enumerated() {
            let payloads = packetizer.packetize(data)
            for (position, payload) in payloads.enumerated() {
                defer { sequence &+= 1 }
                if index == 1 && position == 1 { continue }   // lose the middle packet of frame 1
                outputs.append(try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: UInt32(index),
                                                  marker: position == payloads.count - 1))
            }
        }
        #expect(outputs.map(\.lostPackets) == [0, 0, 0, 0, 1, 0, 0, 0])
        #expect(outputs.compactMap(\.frame).map(\.rtpTimestamp) == [0, 3])   // frames 1 and 2 withheld
        #expect(assembler.lostPacketCount == 1 && assembler.discardedFrameCount == 2)
        #expect(!assembler.needsKeyFrame)
    }

    @Test func duplicatesAndContinuationsWithoutStartAreIgnored() throws {
        var assembler = VP8FrameAssembler()
        let start: [UInt8] = [0x10] + frame(20, key: true)
        #expect(try assembler.push(payload: [0x00, 1, 2], sequenceNumber: 9, timestamp: 0, marker: true).frame == nil)
        #expect(try assembler.push(payload: start, sequenceNumber: 10, timestamp: 1, marker: true).frame != nil)
        #expect(try assembler.push(payload: start, sequenceNumber: 10, timestamp: 1, marker: true).frame == nil)
        #expect(throws: RTPPayloadError.truncatedVP8Header) {
            try assembler.push(payload: [0x10, 0x50], sequenceNumber: 11, timestamp: 2, marker: true)
        }
        #expect(assembler.needsKeyFrame)
    }

    @Test func seededRandomPayloadsNeverCrashTheAssembler() {
        var random = SeededRandom(seed: 42)
        var assembler = VP8FrameAssembler(maxFrameSize: 4_096)
        for index in 0..<20_000 {
            let payload = random.bytes(Int.random(in: 0...64, using: &random))
            let sequence = UInt16(truncatingIfNeeded: index + Int.random(in: -2...2, using: &random))
            _ = try? assembler.push(payload: payload, sequenceNumber: sequence, timestamp: UInt32(index / 4),
                                    marker: Bool.random(using: &random))
        }
    }

    @Test func realEncodedFramesSurvivePacketizationAt1200Bytes() throws {
        var configuration = VP8Encoder.Configuration(width: 640, height: 480)
        configuration.bitrate = 2_000_000
        let encoder = try VP8Encoder(configuration: configuration)
        let decoder = try VP8Decoder()
        let pattern = try TestPatternGenerator(width: 640, height: 480)
        var packetizer = VP8Packetizer()
        var assembler = VP8FrameAssembler()
        var sequence: UInt16 = 40_000
        var numbers: [Int?] = []
        var sawMultiPacketFrame = false
        for number in 0..<12 {
            let encoded = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            let payloads = packetizer.packetize(encoded)
            sawMultiPacketFrame = sawMultiPacketFrame || payloads.count > 1
            for (position, payload) in payloads.enumerated() {
                #expect(payload.count <= 1_200)
                #expect(VP8.isKeyFrame(payload: payload) == (position == 0 && encoded.isKeyFrame))
                let output = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: encoded.rtpTimestamp,
                                                marker: position == payloads.count - 1)
                sequence &+= 1
                guard let frame = output.frame else { continue }
                #expect(frame.data == encoded.data && frame.isKeyFrame == encoded.isKeyFrame)
                if frame.isKeyFrame { #expect(frame.width == 640 && frame.height == 480) }
                let decoded = try decoder.decode(frame.encodedFrame)
                numbers.append(decoded.flatMap(TestPatternReader.frameNumber(in:)))
            }
        }
        #expect(sawMultiPacketFrame)
        #expect(numbers == (0..<12).map { $0 })
    }
}
