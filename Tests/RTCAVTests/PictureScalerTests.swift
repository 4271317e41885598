import RTCAV
import RTCMedia
import Testing

@Suite struct PictureScalerTests {
    @Test func scalesATestPatternIntoATileThatStillReadsItsFrameNumber() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 180)
        var target = try VideoPixelBuffer.black(width: 640, height: 360)
        let scaler = PictureScaler()
        try scaler.scale(pattern.buffer(number: 4_242), into: &target, x: 320, y: 180, width: 320, height: 180)
        try scaler.scale(pattern.buffer(number: 77), into: &target, x: 0, y: 0, width: 160, height: 90)
        // The tiles read back their numbers; the rest stays black.
        #expect(TestPatternReader.frameNumber(in: try target.cropped(x: 320, y: 180, width: 320, height: 180)) == 4_242)
        #expect(TestPatternReader.frameNumber(in: try target.cropped(x: 0, y: 0, width: 160, height: 90)) == 77)
        let untouched = try target.cropped(x: 320, y: 0, width: 320, height: 180)
        #expect(untouched.withPlane(0) { $0.allSatisfy { $0 == 16 } })
    }

    @Test func refusesARectangleOutsideTheTarget() throws {
        var target = try VideoPixelBuffer.black(width: 64, height: 64)
        let source = try VideoPixelBuffer.black(width: 32, height: 32)
        #expect(throws: AVMediaError.self) { try PictureScaler().scale(source, into: &target, x: 40, y: 0, width: 32, height: 32) }
    }
}
