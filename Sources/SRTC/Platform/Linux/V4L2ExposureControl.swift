#if os(Linux)
import CV4L2
import Glibc

/// Sets the exposure of a V4L2 camera as `V4L2ExposurePlan` says, on a descriptor of its own:
/// V4L2 lets a node be opened more than once and its controls belong to the device, so this never
/// touches the capture thread's descriptor (VIDIOC_QUERYCTRL, VIDIOC_QUERYMENU, VIDIOC_G_CTRL,
/// VIDIOC_S_CTRL; linux/videodev2.h).
enum V4L2ExposureControl {
    /// Sets `ev` on the camera at `path`. `base` is the exposure time a bias of 0 stands for: nil
    /// until the app first fixes the exposure (then the camera's current time is taken), nil again
    /// once the camera is back in its automatic mode.
    /// - Throws: `.notFound` when the camera has no exposure control, `.systemError` when it
    ///   cannot be opened or refuses a value.
    static func set(ev: Double, path: String, base: inout Int64?) throws(SRTCError) {
        let fd = open(path, O_RDWR | O_NONBLOCK)
        guard fd >= 0 else { throw .systemError("camera \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let biasId = srtc_V4L2_CID_AUTO_EXPOSURE_BIAS(), absoluteId = srtc_V4L2_CID_EXPOSURE_ABSOLUTE(), autoId = srtc_V4L2_CID_EXPOSURE_AUTO()

        var plan = V4L2ExposurePlan()
        if let bias = query(fd, biasId) {
            if bias.type == V4L2_CTRL_TYPE_INTEGER_MENU.rawValue, bias.minimum <= bias.maximum, Int64(bias.maximum) - Int64(bias.minimum) < 256 {
                var items: [Int64] = []
                for index in bias.minimum...bias.maximum {
                    var value: Int64 = 0
                    if srtc_v4l2_integer_menu_item(fd, biasId, UInt32(bitPattern: index), &value) == 0 { items.append(value) }
                }
                if !items.isEmpty { plan.bias = .menu(items) }
            } else if bias.type == V4L2_CTRL_TYPE_INTEGER.rawValue {
                plan.bias = .range(min: Int64(bias.minimum), max: Int64(bias.maximum), step: Int64(bias.step))
            }
        }
        let absolute = query(fd, absoluteId)
        if let absolute {
            plan.absolute = .init(min: Int64(absolute.minimum), max: Int64(absolute.maximum), step: Int64(absolute.step))
        }
        let automatic = query(fd, autoId)
        let manualMode = Int32(V4L2_EXPOSURE_MANUAL.rawValue)
        if let automatic, automatic.default_value != manualMode { plan.automaticMode = automatic.default_value }

        let startingBase = base ?? value(fd, absoluteId) ?? Int64(absolute?.default_value ?? 1)
        guard let writes = plan.writes(ev: ev, base: startingBase) else {
            throw .notFound("exposure control on camera \(path)")
        }
        for write in writes {
            switch write {
            case .bias(let value):
                try set(fd, biasId, Int32(clamping: value), path)
            case .automatic(let mode):
                try set(fd, autoId, mode, path)
                base = nil
            case .manual(let exposure):
                if automatic != nil { try set(fd, autoId, manualMode, path) }
                try set(fd, absoluteId, Int32(clamping: exposure), path)
                base = startingBase
            }
        }
    }

    /// The control's description, or nil when the camera lacks it (or has it disabled).
    private static func query(_ fd: Int32, _ id: UInt32) -> v4l2_queryctrl? {
        var control = v4l2_queryctrl()
        control.id = id
        guard srtc_v4l2_ioctl(fd, srtc_VIDIOC_QUERYCTRL(), &control) == 0, control.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else {
            return nil
        }
        return control
    }

    /// The control's current value.
    private static func value(_ fd: Int32, _ id: UInt32) -> Int64? {
        var control = v4l2_control(id: id, value: 0)
        guard srtc_v4l2_ioctl(fd, srtc_VIDIOC_G_CTRL(), &control) == 0 else { return nil }
        return Int64(control.value)
    }

    private static func set(_ fd: Int32, _ id: UInt32, _ value: Int32, _ path: String) throws(SRTCError) {
        var control = v4l2_control(id: id, value: value)
        guard srtc_v4l2_ioctl(fd, srtc_VIDIOC_S_CTRL(), &control) == 0 else {
            throw .systemError("camera \(path): exposure control \(id) = \(value): \(String(cString: strerror(errno)))")
        }
    }
}
#endif
