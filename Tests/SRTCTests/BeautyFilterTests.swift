import Foundation
import RTCMedia
import Testing
@testable import SRTCCore
@testable import SRTCRender

/// The render module's beauty filter through the public API: each level moves the picture the
/// documented way, measured on a synthetic scene (mean luminance, red chroma, high-frequency
/// energy), with every other stage at 0 so one stage is measured at a time.
@Suite struct BeautyFilterTests {
    let scene = SyntheticScene(width: 160, height: 120)

    /// An engine with the beauty filter on and every level 0 but what the test sets.
    func engine(blur: Float = 0, white: Float = 0, red: Float = 0, sharpen: Float = 0,
                filter: String = "origin", filterLevel: Float = 0) throws -> SRTCEngine {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "beauty")))
        try engine.installRenderModule()
        try engine.enabledBeauty(true)
        engine.setBlurLevel(blur)
        engine.setWhiteLevel(white)
        engine.setRedLevel(red)
        engine.setSharpenLevel(sharpen)
        engine.setFilterName(filter)
        engine.setFilterLevel(filterLevel)
        return engine
    }

    /// What a camera track's preview shows for `picture`.
    func rendered(_ picture: VideoPixelBuffer, by engine: SRTCEngine, desc: String = "camera_big") throws -> VideoPixelBuffer {
        let track = engine.createLocalCustomVideoTrack(desc: desc, preset: .h180p)
        let preview = FrameCollector()
        track.add(videoRenderer: preview)
        #expect(track.pushFrame(VideoFrame(buffer: picture, timestampUs: 0)))
        return try #require(preview.frames.withLock { $0.last }).buffer
    }

    @Test func defaultsAreTheDocumentedOnes() {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "beauty")))
        #expect(engine.getBlurLevel() == 0.5)
        #expect(engine.getWhiteLevel() == 0.3)
        #expect(engine.getRedLevel() == 0.3)
        #expect(engine.getSharpenLevel() == 0.3)
        #expect(engine.getFilterLevel() == 0.8)
        #expect(engine.getFilterName() == "origin")
        #expect(!engine.isBeautyEnabled())
        #expect(SRTCEngine.availableFilterNames.contains("origin"))
    }

    @Test func levelsAreClampedToZeroToOneAndNaNIsIgnored() {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "beauty")))
        engine.setBlurLevel(1.7)
        engine.setWhiteLevel(-0.2)
        engine.setRedLevel(.nan)
        engine.setSharpenLevel(0.25)
        engine.setFilterLevel(.infinity)
        #expect(engine.getBlurLevel() == 1)
        #expect(engine.getWhiteLevel() == 0)
        #expect(engine.getRedLevel() == 0.3)
        #expect(engine.getSharpenLevel() == 0.25)
        #expect(engine.getFilterLevel() == 1)
        engine.setFilterName("warm")
        #expect(engine.getFilterName() == "warm")
        engine.setFilterName("no-such-filter")
        #expect(engine.getFilterName() == "origin")
    }

    @Test func enablingBeautyBeforeInstallingTheRenderModuleIsAConflict() throws {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "beauty")))
        #expect(throws: SRTCError.conflict("the render module is not installed")) { try engine.enabledBeauty(true) }
        #expect(SRTCError.conflict("").code == 1009)
        try engine.installRenderModule()
        try engine.enabledBeauty(true)
        #expect(engine.isBeautyEnabled())
        engine.uninstallRenderModule()
        #expect(!engine.isBeautyEnabled())
    }

    @Test func offMeansFramesPassThroughUnchanged() throws {
        let picture = scene.frame(person: true)
        let engine = try engine(blur: 1, white: 1, red: 1, sharpen: 1)
        #expect(try rendered(picture, by: engine) != picture)
        try engine.enabledBeauty(false)
        try engine.installVirtualBackground(segmenter: BackgroundModelSegmenter())
        #expect(try rendered(picture, by: engine) == picture)
        // Non-I420 input is not even converted while everything is off.
        let bgra = picture.converted(to: .bgra)
        #expect(try rendered(bgra, by: engine) == bgra)
    }

    @Test func whiteningRaisesTheMeanLuminanceWithTheLevel() throws {
        let picture = scene.frame(person: true)
        let means = try [0, 0.3, 0.6, 1].map { level in
            PictureMeasure.mean(try rendered(picture, by: engine(white: Float(level))), plane: 0)
        }
        #expect(means[0] == PictureMeasure.mean(picture, plane: 0))
        #expect(zip(means, means.dropFirst()).allSatisfy { $0 + 3 < $1 }, "mean luma \(means)")
    }

    @Test func smoothingLowersHighFrequencyEnergyOnSkinAndKeepsHardEdges() throws {
        let picture = scene.frame(person: true)
        let skin = { (x: Int, y: Int) in scene.isPerson(x: x, y: y) && scene.isPerson(x: x + 4, y: y + 4)
            && scene.isPerson(x: x - 4, y: y - 4) && y < Int(Double(scene.height) * 0.75) }
        let collar = { (x: Int, y: Int) in scene.isPerson(x: x, y: y) && y > Int(Double(scene.height) * 0.82) }
        let outputs = try [0, 0.3, 0.6, 1].map { try rendered(picture, by: engine(blur: Float($0))) }
        let skinEnergy = outputs.map { PictureMeasure.highFrequencyEnergy($0, region: skin) }
        #expect(zip(skinEnergy, skinEnergy.dropFirst()).allSatisfy { $0 > $1 * 1.2 }, "skin energy \(skinEnergy)")
        // Black/white stripes 170 levels apart are edges, not texture: they stay.
        let collarEnergy = outputs.map { PictureMeasure.highFrequencyEnergy($0, region: collar) }
        #expect(collarEnergy[3] > collarEnergy[0] * 0.8, "collar energy \(collarEnergy)")
    }

    @Test func sharpeningRaisesHighFrequencyEnergyWithTheLevel() throws {
        let picture = scene.frame(person: true)
        let energy = try [0, 0.3, 0.6, 1].map { PictureMeasure.highFrequencyEnergy(try rendered(picture, by: engine(sharpen: Float($0)))) }
        #expect(zip(energy, energy.dropFirst()).allSatisfy { $0 * 1.1 < $1 }, "energy \(energy)")
    }

    @Test func ruddinessRaisesRedChromaAndLowersBlue() throws {
        let picture = scene.frame(person: true)
        let outputs = try [0, 0.5, 1].map { try rendered(picture, by: engine(red: Float($0))) }
        let v = outputs.map { PictureMeasure.mean($0, plane: 2) }, u = outputs.map { PictureMeasure.mean($0, plane: 1) }
        #expect(zip(v, v.dropFirst()).allSatisfy { $0 + 4 < $1 }, "mean V \(v)")
        #expect(zip(u, u.dropFirst()).allSatisfy { $0 > $1 + 1 }, "mean U \(u)")
        #expect(outputs.allSatisfy { $0.withPlane(0) { Array($0) } == picture.withPlane(0) { Array($0) } })
    }

    @Test func colourFiltersMoveChromaTheirWayByTheirLevel() throws {
        let picture = scene.frame(person: true)
        let (u0, v0) = (PictureMeasure.mean(picture, plane: 1), PictureMeasure.mean(picture, plane: 2))
        let mono = try rendered(picture, by: engine(filter: "mono", filterLevel: 1))
        #expect(mono.withPlane(1) { $0.allSatisfy { $0 == 128 } } && mono.withPlane(2) { $0.allSatisfy { $0 == 128 } })
        let warm = try rendered(picture, by: engine(filter: "warm", filterLevel: 1))
        #expect(PictureMeasure.mean(warm, plane: 2) > v0 + 8 && PictureMeasure.mean(warm, plane: 1) < u0 - 6)
        let halfWarm = try rendered(picture, by: engine(filter: "warm", filterLevel: 0.5))
        #expect(abs(PictureMeasure.mean(halfWarm, plane: 2) - (v0 + 6)) < 1)
        let cool = try rendered(picture, by: engine(filter: "cool", filterLevel: 1))
        #expect(PictureMeasure.mean(cool, plane: 1) > u0 + 10 && PictureMeasure.mean(cool, plane: 2) < v0 - 6)
        #expect(try rendered(picture, by: engine(filter: "sepia", filterLevel: 0)) == picture)
    }

    @Test func onlyCameraTracksAreBeautified() throws {
        let picture = scene.frame(person: true)
        let engine = try engine(white: 1)
        #expect(try rendered(picture, by: engine, desc: "screen") == picture)
        #expect(try rendered(picture, by: engine, desc: "camera_big") != picture)
    }

    @Test func beautyRunsBeforeTheVirtualBackgroundOnEveryFrame() throws {
        let engine = try engine(white: 1)
        let spy = MaskSpySegmenter(mask: nil)
        try engine.installVirtualBackground(segmenter: spy)
        try engine.enabledVirtualBackground(true)
        let picture = scene.frame(person: true)
        _ = try rendered(picture, by: engine)
        let seen = try #require(spy.frames.first)
        #expect(PictureMeasure.mean(seen, plane: 0) > PictureMeasure.mean(picture, plane: 0) + 10)
    }
}
