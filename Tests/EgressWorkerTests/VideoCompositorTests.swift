@testable import EgressWorker
import EgressProtocol
import RTCMedia
import Testing

@Suite struct VideoCompositorTests {
    @Test func eachSourceLandsInItsTileAndEmptyOrMutedTilesAreBlack() throws {
        let compositor = try VideoCompositor(width: 640, height: 360, layout: .grid)
        let pattern = try TestPatternGenerator(width: 320, height: 180)
        compositor.setSources(["a", "b", "c"])
        compositor.update("a", frame: pattern.videoFrame(number: 11))
        compositor.update("b", frame: pattern.videoFrame(number: 100_022))
        compositor.update("c", frame: pattern.videoFrame(number: 200_033))
        var picture = compositor.compose()
        #expect(TestPatternReader.frameNumber(in: try picture.cropped(x: 0, y: 0, width: 320, height: 180)) == 11)
        #expect(TestPatternReader.frameNumber(in: try picture.cropped(x: 320, y: 0, width: 320, height: 180)) == 100_022)
        #expect(TestPatternReader.frameNumber(in: try picture.cropped(x: 0, y: 180, width: 320, height: 180)) == 200_033)
        #expect(try picture.cropped(x: 320, y: 180, width: 320, height: 180).withPlane(0) { $0.allSatisfy { $0 == 16 } })

        // B mutes: its tile goes black. B leaves: two tiles side by side, letterboxed.
        compositor.setMuted("b", true)
        picture = compositor.compose()
        #expect(try picture.cropped(x: 320, y: 0, width: 320, height: 180).withPlane(0) { $0.allSatisfy { $0 == 16 } })
        compositor.setSources(["a", "c"])
        picture = compositor.compose()
        #expect(TestPatternReader.frameNumber(in: try picture.cropped(x: 0, y: 90, width: 320, height: 180)) == 11)
        #expect(TestPatternReader.frameNumber(in: try picture.cropped(x: 320, y: 90, width: 320, height: 180)) == 200_033)
        #expect(try picture.cropped(x: 0, y: 0, width: 640, height: 90).withPlane(0) { $0.allSatisfy { $0 == 16 } })
    }

    @Test func theSpeakerLayoutPutsTheSpeakerLarge() throws {
        let compositor = try VideoCompositor(width: 640, height: 360, layout: .speaker)
        let pattern = try TestPatternGenerator(width: 320, height: 180)
        compositor.setSources(["a", "b"])
        compositor.update("a", frame: pattern.videoFrame(number: 5))
        compositor.update("b", frame: pattern.videoFrame(number: 6))
        compositor.setSpeaker("b")
        let picture = compositor.compose()
        // B fills the 480×360 main area (480×270, letterboxed), A is a 160×90 tile in the column.
        #expect(TestPatternReader.frameNumber(in: try picture.cropped(x: 0, y: 44, width: 480, height: 270)) == 6)
        #expect(TestPatternReader.frameNumber(in: try picture.cropped(x: 480, y: 14, width: 160, height: 90)) == 5)
    }
}
