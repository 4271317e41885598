import Testing
@testable import RTCMedia

/// libaom encodes and dav1d decodes: the numbered test pattern survives the round trip, key frames
/// come on request, a size change restarts with one, and what is not decodable AV1 gives no picture.
@Suite struct AV1CodecTests {
    private func encoder(width: Int = 320, height: Int = 240) throws -> AV1Encoder {
        var configuration = AV1Encoder.Configuration(width: width, height: height)
        configuration.bitrate = 600_000
        return try AV1Encoder(configuration: configuration)
    }

    @Test func testPatternNumbersSurviveEncodeDecode() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder()
        let decoder = try AV1Decoder()
        var recovered: [Int?] = []
        for number in 0..<40 {
            let encoded = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            #expect(encoded.isKeyFrame == (number == 0), "frame \(number)")
            let decoded = try #require(try decoder.decodeIntact(encoded))
            #expect(decoded.width == 320 && decoded.height == 240)
            #expect(decoded.timestampUs == encoded.timestampUs)
            recovered.append(TestPatternReader.frameNumber(in: decoded))
        }
        #expect(recovered == (0..<40).map { $0 })
    }

    @Test func keyFramesOnRequestAndOnForce() throws {
        let pattern = try TestPatternGenerator(width: 160, height: 120)
        let encoder = try encoder(width: 160, height: 120)
        var keys: [Bool] = []
        for number in 0..<10 {
            if number == 4 { encoder.requestKeyFrame() }
            let encoded = try #require(try encoder.encode(pattern.videoFrame(number: number), forceKeyFrame: number == 7))
            keys.append(encoded.isKeyFrame)
        }
        #expect(keys == [true, false, false, false, true, false, false, true, false, false])
    }

    @Test func aSizeChangeRestartsWithAKeyFrameTheDecoderFollows() throws {
        let encoder = try encoder(width: 160, height: 120)
        let decoder = try AV1Decoder()
        let small = try #require(try encoder.encode(TestPatternGenerator(width: 160, height: 120).videoFrame(number: 0)))
        #expect(try decoder.decodeIntact(small)?.width == 160)
        let big = try #require(try encoder.encode(TestPatternGenerator(width: 320, height: 240).videoFrame(number: 1)))
        #expect(big.isKeyFrame)
        let decoded = try #require(try decoder.decodeIntact(big))
        #expect(decoded.width == 320 && TestPatternReader.frameNumber(in: decoded) == 1)
    }

    @Test func bytesThatAreNotAV1AreRefused() throws {
        let decoder = try AV1Decoder()
        #expect(throws: AV1CodecError.invalidInput) { try decoder.decode([], timestampUs: 0) }
        // An OBU header with the forbidden bit set (AV1 §5.3.1), and a delta frame with no key frame
        // before it: no picture comes out (dav1d refuses or drops them).
        #expect((try? decoder.decode([0x80, 0x00, 0x01, 0x02], timestampUs: 0)).flatMap { $0 } == nil)
        let encoder = try encoder(width: 160, height: 120)
        let pattern = try TestPatternGenerator(width: 160, height: 120)
        _ = try encoder.encode(pattern.videoFrame(number: 0))
        let delta = try #require(try encoder.encode(pattern.videoFrame(number: 1)))
        #expect(!delta.isKeyFrame && (try? decoder.decodeIntact(delta)).flatMap { $0 } == nil)
    }
}
