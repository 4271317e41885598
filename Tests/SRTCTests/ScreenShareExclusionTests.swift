@testable import SRTCCore
@testable import SRTCDevices
import Testing

/// Seed 001's rule for what a screen share cuts out (`requestShare(source:…excludedWindowIds:
/// excludesCurrentApplication:)`), and the blanking X11 uses for it; platform-neutral, so the
/// same rule holds where ScreenCaptureKit applies it.
@Suite struct ScreenShareExclusionTests {
    static let display = DisplaySource(id: 0, width: 320, height: 240)
    static let mine = WindowSource(id: 11, title: "preview", processId: 100, frame: ScreenRect(x: 0, y: 0, width: 100, height: 100))
    static let alsoMine = WindowSource(id: 12, title: "meeting", processId: 100, frame: ScreenRect(x: 50, y: 50, width: 100, height: 100))
    static let theirs = WindowSource(id: 20, title: "editor", processId: 200, frame: ScreenRect(x: 0, y: 0, width: 320, height: 240))
    static let shown = [mine, alsoMine, theirs]

    static func ids(_ source: any ScreenCaptureSource, excluded: [UInt32] = [], currentApp: Bool = false) -> [UInt32] {
        ScreenShareExclusion.windowIds(for: source, among: shown, excludedWindowIds: excluded, excludesCurrentApplication: currentApp,
                                       currentProcess: 100)
    }

    @Test func aDisplayIncludesEverythingUnlessToldOtherwise() {
        #expect(Self.ids(Self.display) == [])
        // Named windows go, once each, even one not shown now (it may be shown later).
        #expect(Self.ids(Self.display, excluded: [11, 11, 99]) == [11, 99])
        // The current application: every window this process owns; the named ones are ignored.
        #expect(Self.ids(Self.display, excluded: [20], currentApp: true) == [11, 12])
    }

    @Test func aWindowShareCutsOutNothing() {
        #expect(Self.ids(Self.theirs, excluded: [11]) == [])
        #expect(Self.ids(Self.theirs, currentApp: true) == [])
    }

    @Test func rectanglesMeetOrNot() {
        let a = ScreenRect(x: 10, y: 10, width: 20, height: 20)
        #expect(a.intersection(ScreenRect(x: 20, y: 0, width: 100, height: 15)) == ScreenRect(x: 20, y: 10, width: 10, height: 5))
        #expect(a.intersection(ScreenRect(x: 30, y: 10, width: 5, height: 5)).isEmpty, "touching edges share no pixel")
        #expect(a.intersection(ScreenRect(x: -5, y: -5, width: 100, height: 100)) == a)
    }

    @Test func blankingPaintsOnlyTheRectanglesInsideThePicture() {
        let (width, height, stride) = (8, 4, 40)   // rows padded past the 32 bytes of pixels
        var pixels = [UInt8](repeating: 0xAB, count: stride * height)
        pixels.withUnsafeMutableBytes {
            ScreenShareExclusion.blank([ScreenRect(x: 6, y: 2, width: 10, height: 10), ScreenRect(x: -3, y: 0, width: 4, height: 1)],
                                       in: $0.baseAddress!, width: width, height: height, stride: stride)
        }
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * stride + x * 4)..<(y * stride + x * 4 + 4)]) }
        #expect(pixel(0, 0) == [0, 0, 0, 0] && pixel(1, 0) == [0xAB, 0xAB, 0xAB, 0xAB])
        #expect(pixel(6, 2) == [0, 0, 0, 0] && pixel(7, 3) == [0, 0, 0, 0] && pixel(5, 3) == [0xAB, 0xAB, 0xAB, 0xAB])
        #expect(pixels[(2 * stride + 32)..<(3 * stride)].allSatisfy { $0 == 0xAB }, "the row padding is not the picture")
        #expect(pixels.filter { $0 == 0 }.count == 4 * (1 + 2 * 2))
    }
}
