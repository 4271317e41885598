#if os(Linux)
import SRTCCore
import CV4L2

/// Refocuses a V4L2 camera as `V4L2FocusPlan` says, through `V4L2Controls`.
enum V4L2FocusControl {
    /// Refocuses the camera at `path`.
    /// - Throws: `.notFound` when the camera has no autofocus control, `.systemError` when it
    ///   cannot be opened or refuses a value.
    static func refocus(path: String) throws(SRTCError) {
        try V4L2Controls.withCamera(path) { fd throws(SRTCError) in
            let plan = V4L2FocusPlan(autoFocusStart: V4L2Controls.query(fd, Self.id(.autoFocusStart)) != nil,
                                     focusAuto: V4L2Controls.query(fd, Self.id(.focusAuto)) != nil)
            guard let writes = plan.writes else { throw .notFound("autofocus control on camera \(path)") }
            for write in writes { try V4L2Controls.set(fd, Self.id(write.control), write.value, path) }
        }
    }

    /// The control's id in linux/v4l2-controls.h.
    static func id(_ control: V4L2FocusPlan.Control) -> UInt32 {
        switch control {
        case .focusAuto: srtc_V4L2_CID_FOCUS_AUTO()
        case .autoFocusStart: srtc_V4L2_CID_AUTO_FOCUS_START()
        }
    }
}
#endif
