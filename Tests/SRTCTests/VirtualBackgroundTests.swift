import Foundation
import RTCMedia
import Synchronization
import Testing
@testable import SRTCCore
@testable import SRTCRender

/// A segmenter that returns a fixed mask (or none) and keeps what it was given.
final class MaskSpySegmenter: PersonSegmenter, @unchecked Sendable {
    let mask: [UInt8]?
    private(set) var frames: [VideoPixelBuffer] = []
    private(set) var resets = 0

    init(mask: [UInt8]?) {
        self.mask = mask
    }

    func segment(_ frame: VideoPixelBuffer, into mask: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        frames.append(frame)
        guard let fixed = self.mask else { return false }
        _ = mask.update(fromContentsOf: fixed)
        return true
    }

    func reset() { resets += 1 }
}

/// The virtual background through the public API: the result codes, the settings' rules, the
/// inference interval and mask sync, and the quality of blur and image replacement on a synthetic
/// scene whose person mask is known.
@Suite struct VirtualBackgroundTests {
    let scene = SyntheticScene(width: 320, height: 240)

    func makeEngine() -> SRTCEngine { SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "vb"))) }

    /// An engine with `segmenter` installed and the virtual background on.
    func engine(with segmenter: PersonSegmenter, interval: Int = 1) throws -> SRTCEngine {
        let engine = makeEngine()
        try engine.installVirtualBackground(segmenter: segmenter)
        try engine.enabledVirtualBackground(true)
        engine.setVirtualBackgroundInferenceInterval(interval)
        return engine
    }

    /// Pushes `pictures` through a camera track and returns what its preview showed.
    func render(_ pictures: [VideoPixelBuffer], by engine: SRTCEngine) -> [VideoPixelBuffer] {
        let track = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: .h180p)
        let preview = FrameCollector()
        track.add(videoRenderer: preview)
        for (n, picture) in pictures.enumerated() { track.pushFrame(VideoFrame(buffer: picture, timestampUs: Int64(n) * 33_333)) }
        return preview.frames.withLock { $0.map(\.buffer) }
    }

    /// (fraction of wall pixels replaced, fraction of person pixels kept), on luma.
    func score(_ output: VideoPixelBuffer, input: VideoPixelBuffer, replaced: (Int, UInt8, UInt8) -> Bool) -> (Double, Double) {
        let mask = scene.mask
        var wall = 0, wallReplaced = 0, person = 0, personKept = 0
        output.withPlane(0) { out in
            input.withPlane(0) { original in
                for i in 0..<mask.count {
                    if mask[i] == 0 {
                        wall += 1
                        if replaced(i, out[i], original[i]) { wallReplaced += 1 }
                    } else {
                        person += 1
                        if abs(Int(out[i]) - Int(original[i])) <= 6 { personKept += 1 }
                    }
                }
            }
        }
        return (Double(wallReplaced) / Double(wall), Double(personKept) / Double(person))
    }

    // MARK: - Result codes and settings

    @Test func enablingBeforeInstallIsAConflictAndInstallingTwiceToo() throws {
        let engine = makeEngine()
        #expect(throws: SRTCError.conflict("the virtual background is not installed")) { try engine.enabledVirtualBackground(true) }
        try engine.installVirtualBackground(nil)
        #expect(!engine.isVirtualBackgroundEnabled())   // installed means off until enabled
        #expect(throws: SRTCError.conflict("the virtual background is installed already")) { try engine.installVirtualBackground(nil) }
        try engine.enabledVirtualBackground(true)
        #expect(engine.isVirtualBackgroundEnabled())
        engine.uninstallVirtualBackground()
        #expect(!engine.isVirtualBackgroundEnabled())
        #expect(throws: SRTCError.conflict("the virtual background is not installed")) { try engine.enabledVirtualBackground(true) }
    }

    /// The documentation: "It's uninstalled automatically when the engine is destroyed": the
    /// segmenter (the inference session) is let go and the component is no longer installed.
    @Test func destroyingTheEngineUninstallsIt() async throws {
        let engine = makeEngine()
        weak var released: MaskSpySegmenter?
        do {
            let spy = MaskSpySegmenter(mask: scene.mask)
            released = spy
            try engine.installVirtualBackground(segmenter: spy)
            try engine.enabledVirtualBackground(true)
        }
        #expect(released != nil && engine.isVirtualBackgroundEnabled())
        await engine.destroy()
        #expect(!engine.isVirtualBackgroundEnabled() && !engine.renderModule.current.backgroundInstalled)
        #expect(released == nil, "the segmenter outlived the engine's destroy()")
    }

    @Test func aMissingModelIsNotFoundAndAnUnreadableOneASystemError() throws {
        let engine = makeEngine()
        let missing = NSTemporaryDirectory() + "srtc-no-such-model-\(UUID().uuidString).y4m"
        #expect(throws: SRTCError.notFound(missing)) { try engine.installVirtualBackground(missing) }
        let garbage = NSTemporaryDirectory() + "srtc-garbage-\(UUID().uuidString).y4m"
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: garbage))
        defer { try? FileManager.default.removeItem(atPath: garbage) }
        #expect(throws: SRTCError.self) { try engine.installVirtualBackground(garbage) }
        do { try engine.installVirtualBackground(garbage) } catch { #expect(error.code == 1011) }
        #expect(!engine.isVirtualBackgroundEnabled())
        try engine.installVirtualBackground(nil)   // nothing was left half-installed
    }

    @Test func settingsAreClampedAndRememberedBeforeInstalling() throws {
        let engine = makeEngine()
        #expect(engine.renderModule.current.background.blurLevel == 5)
        engine.setVirtualBackgroundBlur(0)
        #expect(engine.renderModule.current.background.blurLevel == 1)
        engine.setVirtualBackgroundBlur(42)
        #expect(engine.renderModule.current.background.blurLevel == 10)
        engine.setVirtualBackgroundInferenceInterval(-3)
        #expect(engine.renderModule.current.background.interval == 1)
        // Image and blur exclude each other; the later call wins.
        engine.setVirtualBackgroundImage(try VideoPixelBuffer.black(width: 8, height: 8))
        #expect(engine.renderModule.current.background.image != nil)
        engine.setVirtualBackgroundBlur(8)
        #expect(engine.renderModule.current.background.image == nil)
        // Remembered before installing, used after.
        let spy = MaskSpySegmenter(mask: scene.mask)
        try engine.installVirtualBackground(segmenter: spy)
        #expect(engine.renderModule.current.background.blurLevel == 8)
    }

    // MARK: - Interval, mask sync, off

    @Test func segmentationRunsEveryIntervalFramesAndCompositingEveryFrame() throws {
        let spy = MaskSpySegmenter(mask: scene.mask)
        let engine = try engine(with: spy, interval: 3)
        let pictures = (0..<9).map { scene.frame(person: true, seed: UInt64($0 + 1)) }
        let outputs = render(pictures, by: engine)
        #expect(spy.frames.count == 3)
        // Every frame was composited with the last mask: its person is its own.
        for (output, input) in zip(outputs, pictures) {
            #expect(score(output, input: input) { _, out, original in out != original }.1 == 1)
        }
    }

    @Test func maskSyncRepeatsTheLastCompositeBetweenInferences() throws {
        let spy = MaskSpySegmenter(mask: scene.mask)
        let engine = try engine(with: spy, interval: 2)
        engine.setVirtualBackgroundMaskSync(true)
        let pictures = (0..<4).map { scene.frame(person: true, seed: UInt64($0 + 1)) }
        let outputs = render(pictures, by: engine)
        #expect(spy.frames.count == 2)
        #expect(outputs[1] == outputs[0] && outputs[3] == outputs[2])
        #expect(outputs[2] != outputs[0])
    }

    @Test func turningItOffClearsTheInterFrameState() throws {
        let spy = MaskSpySegmenter(mask: scene.mask)
        let engine = try engine(with: spy, interval: 5)
        let picture = scene.frame(person: true)
        _ = render([picture, picture], by: engine)
        #expect(spy.frames.count == 1)
        try engine.enabledVirtualBackground(false)
        #expect(spy.resets == 1)
        #expect(render([picture], by: engine) == [picture])   // off: untouched, no inference
        #expect(spy.frames.count == 1)
        try engine.enabledVirtualBackground(true)
        _ = render([picture], by: engine)
        #expect(spy.frames.count == 2)   // the first frame after turning on is an inference frame again
    }

    @Test func aSegmenterWithoutAnswerLeavesTheFrameAsItIs() throws {
        let engine = try engine(with: MaskSpySegmenter(mask: nil))
        let picture = scene.frame(person: true)
        #expect(render([picture], by: engine) == [picture])
    }

    // MARK: - Quality on a known scene

    @Test func imageBackgroundReplacesTheWallAndKeepsThePerson() throws {
        let engine = try engine(with: BackgroundModelSegmenter())
        // A flat, dark, blue picture of another shape: covered, its colour is everywhere.
        var image = try VideoPixelBuffer(format: .i420, width: 200, height: 100)
        image.withMutablePlane(0) { $0.update(repeating: 30) }
        image.withMutablePlane(1) { $0.update(repeating: 200) }
        image.withMutablePlane(2) { $0.update(repeating: 100) }
        engine.setVirtualBackgroundImage(image)
        let learning = (0..<30).map { scene.frame(person: false, seed: UInt64(100 + $0)) }
        let withPerson = (0..<3).map { scene.frame(person: true, seed: UInt64(200 + $0)) }
        let outputs = render(learning + withPerson, by: engine)
        #expect(outputs.prefix(30).elementsEqual(learning))   // learning: nothing replaced yet
        for (output, input) in zip(outputs.suffix(3), withPerson) {
            let (replaced, kept) = score(output, input: input) { _, out, _ in abs(Int(out) - 30) <= 6 }
            #expect(replaced >= 0.95, "wall replaced \(replaced)")
            #expect(kept >= 0.95, "person kept \(kept)")
        }
    }

    @Test func blurredBackgroundBlursTheWallAndKeepsThePerson() throws {
        let engine = try engine(with: BackgroundModelSegmenter())
        engine.setVirtualBackgroundBlur(5)
        let learning = (0..<30).map { scene.frame(person: false, seed: UInt64(100 + $0)) }
        let withPerson = scene.frame(person: true, seed: 300)
        let output = try #require(render(learning + [withPerson], by: engine).last)
        // The wall is a 70/180 checkerboard: blurred, every sample moves far towards the middle.
        let (replaced, kept) = score(output, input: withPerson) { _, out, original in abs(Int(out) - Int(original)) >= 25 }
        #expect(replaced >= 0.95, "wall blurred \(replaced)")
        #expect(kept >= 0.95, "person kept \(kept)")
        #expect(PictureMeasure.highFrequencyEnergy(output) < PictureMeasure.highFrequencyEnergy(withPerson) / 3)
    }

    @Test func aBackgroundPlateFileGivesMasksFromTheFirstFrame() throws {
        let engine = makeEngine()
        let path = NSTemporaryDirectory() + "srtc-plate-\(UUID().uuidString).y4m"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try Y4MWriter(path: path, width: scene.width, height: scene.height, frameRate: 30)
        try writer.write(VideoFrame(buffer: scene.frame(person: false, seed: 7), timestampUs: 0))
        try writer.close()
        try engine.installVirtualBackground(path)
        try engine.enabledVirtualBackground(true)
        let picture = scene.frame(person: true, seed: 8)
        let output = try #require(render([picture], by: engine).first)
        let (replaced, kept) = score(output, input: picture) { _, out, original in abs(Int(out) - Int(original)) >= 25 }
        #expect(replaced >= 0.95 && kept >= 0.95, "replaced \(replaced), kept \(kept)")
    }

    @Test func anExactMaskCompositesExactly() throws {
        let engine = try engine(with: MaskSpySegmenter(mask: scene.mask))
        var image = try VideoPixelBuffer(format: .i420, width: 64, height: 64)
        image.withMutablePlane(0) { $0.update(repeating: 99) }
        engine.setVirtualBackgroundImage(image)
        let picture = scene.frame(person: true)
        let output = try #require(render([picture], by: engine).first)
        let (replaced, kept) = score(output, input: picture) { _, out, _ in out == 99 }
        #expect(replaced == 1 && kept == 1)
    }

    @Test func coverCropsTheWiderSideAroundTheCentre() {
        #expect(CoverScaler.cropRect(imageWidth: 200, imageHeight: 100, width: 100, height: 100) == (50, 0, 100, 100))
        #expect(CoverScaler.cropRect(imageWidth: 100, imageHeight: 300, width: 160, height: 90) == (0, 122, 100, 56))
        #expect(CoverScaler.cropRect(imageWidth: 64, imageHeight: 36, width: 1280, height: 720) == (0, 0, 64, 36))
    }
}
