#if os(Linux)
import SRTCCore
import CV4L2
import Glibc

/// Sets the exposure of a V4L2 camera as `V4L2ExposurePlan` says, through `V4L2Controls` (and
/// VIDIOC_QUERYMENU for an integer menu's items; linux/videodev2.h).
enum V4L2ExposureControl {
    /// Sets `ev` on the camera at `path`. `base` is the exposure time a bias of 0 stands for: nil
    /// until the app first fixes the exposure (then the camera's current time is taken), nil again
    /// once the camera is back in its automatic mode.
    /// - Throws: `.notFound` when the camera has no exposure control, `.systemError` when it
    ///   cannot be opened or refuses a value.
    static func set(ev: Double, path: String, base: inout Int64?) throws(SRTCError) {
        try V4L2Controls.withCamera(path) { fd throws(SRTCError) in try set(ev: ev, fd: fd, path: path, base: &base) }
    }

    private static func set(ev: Double, fd: Int32, path: String, base: inout Int64?) throws(SRTCError) {
        let biasId = srtc_V4L2_CID_AUTO_EXPOSURE_BIAS(), absoluteId = srtc_V4L2_CID_EXPOSURE_ABSOLUTE(), autoId = srtc_V4L2_CID_EXPOSURE_AUTO()

        var plan = V4L2ExposurePlan()
        if let bias = V4L2Controls.query(fd, biasId) {
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
        let absolute = V4L2Controls.query(fd, absoluteId)
        if let absolute {
            plan.absolute = .init(min: Int64(absolute.minimum), max: Int64(absolute.maximum), step: Int64(absolute.step))
        }
        let automatic = V4L2Controls.query(fd, autoId)
        let manualMode = Int32(V4L2_EXPOSURE_MANUAL.rawValue)
        if let automatic, automatic.default_value != manualMode { plan.automaticMode = automatic.default_value }

        let startingBase = base ?? V4L2Controls.value(fd, absoluteId) ?? Int64(absolute?.default_value ?? 1)
        guard let writes = plan.writes(ev: ev, base: startingBase) else {
            throw .notFound("exposure control on camera \(path)")
        }
        for write in writes {
            switch write {
            case .bias(let value):
                try V4L2Controls.set(fd, biasId, Int32(clamping: value), path)
            case .automatic(let mode):
                try V4L2Controls.set(fd, autoId, mode, path)
                base = nil
            case .manual(let exposure):
                if automatic != nil { try V4L2Controls.set(fd, autoId, manualMode, path) }
                try V4L2Controls.set(fd, absoluteId, Int32(clamping: exposure), path)
                base = startingBase
            }
        }
    }
}
#endif
