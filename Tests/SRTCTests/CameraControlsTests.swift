@testable import SRTC
import Testing

/// The documented ranges of the camera controls (applied on iOS by `LocalCameraTrack`).
struct CameraControlsTests {
    @Test func ratiosAreClampedToTheDocumentedAndTheSupportedRange() {
        let wide = 0.5...16.0
        #expect(CameraControls.clamp(0.2, documented: CameraControls.zoomRange, supported: wide) == 1)
        #expect(CameraControls.clamp(3, documented: CameraControls.zoomRange, supported: wide) == 3)
        #expect(CameraControls.clamp(9, documented: CameraControls.zoomRange, supported: wide) == 5)
        #expect(CameraControls.clamp(9, documented: CameraControls.zoomRange, supported: 1...3) == 3)   // a camera that zooms less
        #expect(CameraControls.clamp(-12, documented: CameraControls.exposureRange, supported: -2...2) == -2)
        #expect(CameraControls.clamp(-12, documented: CameraControls.exposureRange, supported: -20...20) == -8)
        #expect(CameraControls.clamp(.nan, documented: CameraControls.zoomRange, supported: wide) == nil)
        #expect(CameraControls.clamp(2, documented: CameraControls.zoomRange, supported: 6...8) == nil)   // no overlap
    }

    @Test func focusPointsOutsideThePictureAreIgnored() {
        #expect(CameraControls.pointOfInterest(x: 0.25, y: 1).map { $0.x == 0.25 && $0.y == 1 } == true)
        #expect(CameraControls.pointOfInterest(x: -0.1, y: 0.5) == nil)
        #expect(CameraControls.pointOfInterest(x: 0.5, y: 1.5) == nil)
        #expect(CameraControls.pointOfInterest(x: .nan, y: 0.5) == nil)
    }
}
