#if os(Linux)
import SRTCCore
import CV4L2
import Glibc

/// The V4L2 control ioctls the camera controls share (VIDIOC_QUERYCTRL, VIDIOC_G_CTRL,
/// VIDIOC_S_CTRL; linux/videodev2.h), on a descriptor of their own: V4L2 lets a node be opened
/// more than once and its controls belong to the device, so the capture thread's descriptor is
/// never touched.
enum V4L2Controls {
    /// Runs `body` on a descriptor of the camera at `path`, opened for the call.
    /// - Throws: `.systemError` when the camera cannot be opened; whatever `body` throws.
    static func withCamera<T>(_ path: String, _ body: (Int32) throws(SRTCError) -> T) throws(SRTCError) -> T {
        let fd = open(path, O_RDWR | O_NONBLOCK)
        guard fd >= 0 else { throw .systemError("camera \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try body(fd)
    }

    /// The control's description, or nil when the camera lacks it (or has it disabled).
    static func query(_ fd: Int32, _ id: UInt32) -> v4l2_queryctrl? {
        var control = v4l2_queryctrl()
        control.id = id
        guard srtc_v4l2_ioctl(fd, srtc_VIDIOC_QUERYCTRL(), &control) == 0, control.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else {
            return nil
        }
        return control
    }

    /// The control's current value.
    static func value(_ fd: Int32, _ id: UInt32) -> Int64? {
        var control = v4l2_control(id: id, value: 0)
        guard srtc_v4l2_ioctl(fd, srtc_VIDIOC_G_CTRL(), &control) == 0 else { return nil }
        return Int64(control.value)
    }

    /// Writes the control. - Throws: `.systemError` when the camera refuses the value.
    static func set(_ fd: Int32, _ id: UInt32, _ value: Int32, _ path: String) throws(SRTCError) {
        var control = v4l2_control(id: id, value: value)
        guard srtc_v4l2_ioctl(fd, srtc_VIDIOC_S_CTRL(), &control) == 0 else {
            throw .systemError("camera \(path): control \(id) = \(value): \(String(cString: strerror(errno)))")
        }
    }
}
#endif
