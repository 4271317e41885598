#if os(Linux)
import SRTCCore
/// What `setCameraFocusPosition(_:)` means on a V4L2 camera. V4L2 has no focus point of interest
/// (linux/v4l2-controls.h, "Camera Control IDs", has focus distance and autofocus only), so the
/// point, once checked as on iOS, cannot be honoured: the camera is asked to focus on the scene
/// again, with the controls it offers, best first:
///
/// 1. `V4L2_CID_AUTO_FOCUS_START` (a button): one autofocus run, as a tap-to-focus does on iOS.
///    `V4L2_CID_FOCUS_AUTO` is switched off first when the camera has it, because the kernel
///    documentation leaves a start undefined (drivers ignore it) while continuous autofocus is on.
/// 2. `V4L2_CID_FOCUS_AUTO` on: continuous autofocus, what most UVC webcams offer.
/// 3. Neither: nil, which the caller reports as `.notFound` (the camera has no autofocus), as
///    iOS does for a camera without a focus point.
///
/// Pure, so that it is tested without a camera; `V4L2FocusControl` queries and writes.
struct V4L2FocusPlan: Equatable {
    /// A V4L2 control this plan writes.
    enum Control: Equatable {
        /// `V4L2_CID_FOCUS_AUTO` (boolean: continuous autofocus).
        case focusAuto
        /// `V4L2_CID_AUTO_FOCUS_START` (button: one autofocus run).
        case autoFocusStart
    }

    /// One control to write, in order.
    struct Write: Equatable {
        var control: Control
        var value: Int32
    }

    /// The camera has `V4L2_CID_AUTO_FOCUS_START`.
    var autoFocusStart = false
    /// The camera has `V4L2_CID_FOCUS_AUTO`.
    var focusAuto = false

    /// The writes that refocus the camera; nil when it has no autofocus.
    var writes: [Write]? {
        if autoFocusStart {
            return (focusAuto ? [Write(control: .focusAuto, value: 0)] : []) + [Write(control: .autoFocusStart, value: 1)]
        }
        if focusAuto { return [Write(control: .focusAuto, value: 1)] }
        return nil
    }
}
#endif
