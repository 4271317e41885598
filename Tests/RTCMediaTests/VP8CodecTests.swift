import Testing
@testable import RTCMedia

@Suite struct VP8CodecTests {
    private func encoder(width: Int = 320, height: Int = 240) throws -> VP8Encoder {
        var configuration = VP8Encoder.Configuration(width: width, height: height)
        configuration.bitrate = 600_000
        return try VP8Encoder(configuration: configuration)
    }

    @Test func testPatternNumbersSurviveEncodeDecode() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder()
        let decoder = try VP8Decoder()
        var recovered: [Int?] = []
        for number in 0..<40 {
            let encoded = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            #expect(encoded.isKeyFrame == (number == 0), "frame \(number)")
            #expect(encoded.width == 320 && encoded.height == 240)
            let decoded = try #require(try decoder.decode(encoded))
            #expect(decoded.width == 320 && decoded.height == 240)
            #expect(decoded.timestampUs == Int64(number) * 1_000_000 / 30)
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
            #expect(VP8.isKeyFrame(bitstream: encoded.data) == encoded.isKeyFrame)
        }
        #expect(keys == [true, false, false, false, true, false, false, true, false, false])
    }

    @Test func sizeChangeRestartsWithAKeyFrame() throws {
        let encoder = try encoder(width: 160, height: 120)
        let decoder = try VP8Decoder()
        _ = try encoder.encode(TestPatternGenerator(width: 160, height: 120).videoFrame(number: 0))
        let big = try #require(try encoder.encode(TestPatternGenerator(width: 320, height: 240).videoFrame(number: 1)))
        #expect(big.isKeyFrame)
        #expect(VP8.keyFrameSize(bitstream: big.data)?.width == 320)
        let decoded = try #require(try decoder.decode(big))
        #expect(decoded.width == 320 && TestPatternReader.frameNumber(in: decoded) == 1)
    }

    @Test func nv12AndBGRAInputsEncode() throws {
        let encoder = try encoder(width: 160, height: 120)
        let decoder = try VP8Decoder()
        let i420 = try TestPatternGenerator(width: 160, height: 120).buffer(number: 77)
        for (index, format) in [VideoPixelBuffer.Format.nv12, .bgra].enumerated() {
            let frame = VideoFrame(buffer: i420.converted(to: format), timestampUs: Int64(index) * 33_333)
            let encoded = try #require(try encoder.encode(frame))
            let decoded = try #require(try decoder.decode(encoded))
            #expect(TestPatternReader.frameNumber(in: decoded) == 77)
        }
    }

    @Test func deltaFrameWithoutKeyFrameAndGarbageFailToDecode() throws {
        let pattern = try TestPatternGenerator(width: 160, height: 120)
        let encoder = try encoder(width: 160, height: 120)
        _ = try encoder.encode(pattern.videoFrame(number: 0))
        let delta = try #require(try encoder.encode(pattern.videoFrame(number: 1)))
        let decoder = try VP8Decoder()
        #expect(throws: VP8CodecError.self) { try decoder.decode(delta) }
        #expect(throws: VP8CodecError.invalidInput) { try decoder.decode([UInt8](), timestampUs: 0) }
        #expect(throws: VP8CodecError.self) { try VP8Decoder().decode([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a], timestampUs: 0) }
    }

    @Test func invalidConfigurationIsRejected() {
        var configuration = VP8Encoder.Configuration(width: 320, height: 240)
        configuration.cpuUsed = 40
        #expect(throws: VP8CodecError.invalidConfiguration("cpuUsed 40")) { try VP8Encoder(configuration: configuration) }
    }

    @Test func testPatternReaderRejectsPicturesWithoutCode() throws {
        #expect(TestPatternReader.frameNumber(in: try VideoPixelBuffer.black(width: 320, height: 240)) == nil)
        let pattern = try TestPatternGenerator(width: 64, height: 48)
        for number in [0, 1, 255, 65_536, 16_777_215] {
            #expect(TestPatternReader.frameNumber(in: pattern.buffer(number: number)) == number)
        }
    }
}
