import Foundation
@testable import SRTCCore
@testable import SRTCDevices
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

#if os(Linux)
/// `setCameraExposureRatio` on Linux: the V4L2 control values an exposure bias becomes, for each
/// kind of camera (this machine has none: the ioctls themselves run only with a camera).
struct V4L2ExposurePlanTests {
    @Test func anExposureBiasMenuTakesTheNearestItemTiesTowardsZero() throws {
        let plan = V4L2ExposurePlan(bias: .menu([-2_000, -1_333, -667, 0, 667, 1_333, 2_000]))
        #expect(plan.writes(ev: 0.9, base: 100) == [.bias(667)])
        #expect(plan.writes(ev: 1, base: 100) == [.bias(667)])           // 333 from both 667 and 1333
        #expect(plan.writes(ev: -1.2, base: 100) == [.bias(-1_333)])
        #expect(plan.writes(ev: 5, base: 100) == [.bias(2_000)])          // the camera's end of the range
        #expect(plan.writes(ev: -12, base: 100) == [.bias(-2_000)])
        #expect(plan.writes(ev: .nan, base: 100) == [])                   // ignored
    }

    /// A driver's 64-bit menu items at the ends of Int64 are compared, not subtracted into a trap.
    @Test func aMenuWithItemsAtTheEndsOfInt64TakesTheNearest() {
        let plan = V4L2ExposurePlan(bias: .menu([.min, 1_000, .max]))
        #expect(plan.writes(ev: 1, base: 0) == [.bias(1_000)])
        #expect(plan.writes(ev: -8, base: 0) == [.bias(1_000)])
    }

    @Test func anExposureBiasRangeIsSnappedToItsSteps() {
        let plan = V4L2ExposurePlan(bias: .range(min: -3_000, max: 3_000, step: 500), absolute: .init(min: 1, max: 5_000, step: 1))
        #expect(plan.writes(ev: 1.3, base: 100) == [.bias(1_500)])        // the bias wins over the time
        #expect(plan.writes(ev: -1.2, base: 100) == [.bias(-1_000)])
        #expect(plan.writes(ev: 7, base: 100) == [.bias(3_000)])
        #expect(plan.writes(ev: -8.5, base: 100) == [.bias(-3_000)])
    }

    @Test func anExposureTimeIsScaledByTwoToTheBiasAndZeroIsAutomatic() {
        // A UVC webcam: exposure_time_absolute 3…2047 (100 µs), auto_exposure defaulting to
        // aperture priority (3).
        let plan = V4L2ExposurePlan(absolute: .init(min: 3, max: 2_047, step: 1), automaticMode: 3)
        #expect(plan.writes(ev: 1, base: 156) == [.manual(exposure: 312)])
        #expect(plan.writes(ev: -1, base: 156) == [.manual(exposure: 78)])
        #expect(plan.writes(ev: 0.5, base: 100) == [.manual(exposure: 141)])
        #expect(plan.writes(ev: 0, base: 156) == [.automatic(mode: 3)])
        #expect(plan.writes(ev: -8, base: 156) == [.manual(exposure: 3)])      // the shortest the camera does
        #expect(plan.writes(ev: 8, base: 156) == [.manual(exposure: 2_047)])   // the longest
        #expect(plan.writes(ev: 20, base: 1) == [.manual(exposure: 256)])      // clamped to +8 EV first
        // Without an automatic mode a bias of 0 is the base itself; a coarse grid snaps.
        let coarse = V4L2ExposurePlan(absolute: .init(min: 10, max: 1_000, step: 20))
        #expect(coarse.writes(ev: 0, base: 147) == [.manual(exposure: 150)])   // 10 + 7 × 20
        #expect(coarse.writes(ev: 1, base: 147) == [.manual(exposure: 290)])   // 294 → 10 + 14 × 20
    }

    @Test func aCameraWithoutExposureControlsHasNoPlan() {
        #expect(V4L2ExposurePlan().writes(ev: 1, base: 100) == nil)
        #expect(V4L2ExposurePlan(bias: .menu([])).writes(ev: 1, base: 100) == nil)
        #expect(V4L2ExposurePlan.snap(-5, min: 0, max: 10, step: 0) == 0)   // a zero step counts as 1
    }

    @Test func aCameraThatIsNotCapturingRefusesTheControl() {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "exposure"), logLevel: .off, performanceInterval: 0))
        let camera = engine.createLocalCameraTrack()
        #expect(throws: SRTCError.wrongState("the camera is not capturing")) { try camera.setCameraExposureRatio(1) }
    }

    @Test func theEngineSetsTheExposureOfThePreviewedCameraTrackOnly() {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "exposure"), logLevel: .off, performanceInterval: 0))
        #expect(throws: SRTCError.wrongState("no camera preview")) { try engine.setCameraExposureRatio(1) }
        // A custom camera track is the app's own capture: nothing to set.
        engine.startLocalPreview(track: engine.createLocalCustomVideoTrack(desc: "camera_big"), view: nil)
        #expect(throws: SRTCError.wrongState("no camera preview")) { try engine.setCameraExposureRatio(1) }
        // A device camera is asked, and answers for itself.
        engine.startLocalPreview(track: engine.createLocalCameraTrack(), view: nil)
        #expect(throws: SRTCError.wrongState("the camera is not capturing")) { try engine.setCameraExposureRatio(1) }
        engine.stopLocalPreview()
    }
}

/// `setCameraFocusPosition` on Linux: the V4L2 controls and values written for each kind of camera
/// (V4L2 has no focus point: one autofocus run, else continuous autofocus), and the errors without
/// a camera (this machine has none).
struct V4L2FocusPlanTests {
    typealias Write = V4L2FocusPlan.Write

    @Test func aCameraWithOneShotAutofocusRunsItWithContinuousAutofocusOffFirst() {
        // A phone-like sensor driver (both controls): FOCUS_AUTO = 0, then AUTO_FOCUS_START = 1.
        #expect(V4L2FocusPlan(autoFocusStart: true, focusAuto: true).writes
                == [Write(control: .focusAuto, value: 0), Write(control: .autoFocusStart, value: 1)])
        // The button alone.
        #expect(V4L2FocusPlan(autoFocusStart: true, focusAuto: false).writes == [Write(control: .autoFocusStart, value: 1)])
    }

    @Test func aWebcamWithContinuousAutofocusOnlyTurnsItOn() {
        // A UVC webcam: focus_automatic_continuous (and focus_absolute, which the plan leaves).
        #expect(V4L2FocusPlan(autoFocusStart: false, focusAuto: true).writes == [Write(control: .focusAuto, value: 1)])
    }

    @Test func aCameraWithoutAutofocusHasNoPlan() {
        #expect(V4L2FocusPlan().writes == nil)
    }

    /// The ids written are linux/v4l2-controls.h's: V4L2_CID_CAMERA_CLASS_BASE (0x009a0900) + 12
    /// and + 28.
    @Test func theControlsAreTheKernelsFocusControls() {
        #expect(V4L2FocusControl.id(.focusAuto) == 0x009a_090c)
        #expect(V4L2FocusControl.id(.autoFocusStart) == 0x009a_091c)
    }

    @Test func aCameraThatIsNotCapturingRefusesTheFocusEvenForAPointOutside() {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "focus"), logLevel: .off, performanceInterval: 0))
        let camera = engine.createLocalCameraTrack()
        #expect(throws: SRTCError.wrongState("the camera is not capturing")) { try camera.setCameraFocusPosition(CGPoint(x: 0.5, y: 0.5)) }
        #expect(throws: SRTCError.wrongState("the camera is not capturing")) { try camera.setCameraFocusPosition(CGPoint(x: 2, y: 0.5)) }
    }

    @Test func theEngineFocusesThePreviewedCameraTrackOnly() {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "focus"), logLevel: .off, performanceInterval: 0))
        #expect(throws: SRTCError.wrongState("no camera preview")) { try engine.setCameraFocusPosition(CGPoint(x: 0.5, y: 0.5)) }
        engine.startLocalPreview(track: engine.createLocalCustomVideoTrack(desc: "camera_big"), view: nil)
        #expect(throws: SRTCError.wrongState("no camera preview")) { try engine.setCameraFocusPosition(CGPoint(x: 0.5, y: 0.5)) }
        engine.startLocalPreview(track: engine.createLocalCameraTrack(), view: nil)
        #expect(throws: SRTCError.wrongState("the camera is not capturing")) { try engine.setCameraFocusPosition(CGPoint(x: 0, y: 1)) }
        engine.stopLocalPreview()
    }

    /// A camera node that cannot be opened: `.systemError` (what a camera unplugged between the
    /// capture and the call gets), before any control is looked at.
    @Test func aCameraNodeThatCannotBeOpenedIsASystemError() {
        #expect(throws: SRTCError.self) { try V4L2FocusControl.refocus(path: "/nonexistent/video0") }
        do { try V4L2FocusControl.refocus(path: "/nonexistent/video0") } catch {
            guard case .systemError(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("No such file"))
        }
    }

    /// A node that opens but is not a camera (/dev/null answers no VIDIOC_QUERYCTRL): no
    /// autofocus control, `.notFound`.
    @Test func aNodeWithoutFocusControlsIsNotFound() {
        #expect(throws: SRTCError.notFound("autofocus control on camera /dev/null")) { try V4L2FocusControl.refocus(path: "/dev/null") }
    }
}
#endif
