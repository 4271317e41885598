#if os(Linux)
import SRTCCore
import Foundation

/// How `LocalCameraTrack.setCameraExposureRatio(_:)` turns an exposure bias in EV stops
/// (−8.0–8.0, the documentation's `setCameraExposureRatio:`) into V4L2 control values, from the
/// controls the camera offers (linux/v4l2-controls.h, "Camera Control IDs"), best first:
///
/// 1. `V4L2_CID_AUTO_EXPOSURE_BIAS`, the bias itself in units of 0.001 EV: the nearest value
///    the control takes (an integer menu's items, or a range's steps); ties go towards 0.
/// 2. `V4L2_CID_EXPOSURE_ABSOLUTE` (units of 100 µs) with `V4L2_CID_EXPOSURE_AUTO`, what UVC
///    webcams offer: a bias of 0 hands the exposure back to the camera's automatic mode; any
///    other bias fixes the exposure time at 2^EV times the base (the time the camera used when
///    the app first moved it), so +1 lets in twice the light, within the control's range.
///
/// Pure arithmetic, so that it is tested without a camera; `V4L2ExposureControl` reads the
/// controls and writes the values.
struct V4L2ExposurePlan: Equatable {
    /// The values `V4L2_CID_AUTO_EXPOSURE_BIAS` takes, in 0.001 EV.
    enum Bias: Equatable {
        case menu([Int64])
        case range(min: Int64, max: Int64, step: Int64)
    }

    /// `V4L2_CID_EXPOSURE_ABSOLUTE`'s range, in 100 µs.
    struct Absolute: Equatable {
        var min: Int64
        var max: Int64
        var step: Int64
    }

    /// One control to write.
    enum Write: Equatable {
        /// `V4L2_CID_AUTO_EXPOSURE_BIAS`.
        case bias(Int64)
        /// `V4L2_CID_EXPOSURE_AUTO` back to this automatic mode.
        case automatic(mode: Int32)
        /// `V4L2_CID_EXPOSURE_AUTO` to manual (when the camera has it), then
        /// `V4L2_CID_EXPOSURE_ABSOLUTE` to this time.
        case manual(exposure: Int64)
    }

    var bias: Bias?
    var absolute: Absolute?
    /// The automatic mode `V4L2_CID_EXPOSURE_AUTO` returns to: its default, unless that is manual.
    var automaticMode: Int32?

    /// The writes that set `ev` (clamped to −8…8), with `base` the exposure time a bias of 0 stands
    /// for. Empty for NaN (ignored, as on iOS); nil when the camera has neither control.
    func writes(ev: Double, base: Int64) -> [Write]? {
        guard bias != nil || absolute != nil else { return nil }
        guard let ev = CameraControls.clamp(ev, documented: CameraControls.exposureRange, supported: CameraControls.exposureRange) else {
            return []
        }
        if let bias {
            let target = Int64((ev * 1_000).rounded())
            switch bias {
            case .menu(let items):
                // Distances in Double: an integer menu's items are the driver's 64-bit values, where
                // `a - target` (or `abs(Int64.min)`) would trap.
                guard let nearest = items.min(by: { a, b in
                    let (da, db) = (abs(Double(a) - Double(target)), abs(Double(b) - Double(target)))
                    return da != db ? da < db : abs(Double(a)) < abs(Double(b))
                }) else { return nil }
                return [.bias(nearest)]
            case .range(let low, let high, let step):
                return [.bias(Self.snap(target, min: low, max: high, step: step))]
            }
        }
        guard let absolute else { return nil }
        if ev == 0, let automaticMode { return [.automatic(mode: automaticMode)] }
        let wanted = (Double(Swift.max(base, 1)) * pow(2, ev)).rounded()
        let bounded = Swift.min(Swift.max(wanted, Double(absolute.min)), Double(absolute.max))
        return [.manual(exposure: Self.snap(Int64(bounded), min: absolute.min, max: absolute.max, step: absolute.step))]
    }

    /// `value` on the control's grid (min + k × step), within min…max.
    static func snap(_ value: Int64, min low: Int64, max high: Int64, step: Int64) -> Int64 {
        guard low <= high else { return low }
        let step = Swift.max(step, 1)
        let clamped = Swift.min(Swift.max(value, low), high)
        let steps = ((Double(clamped - low) / Double(step)).rounded())
        return Swift.min(low + Int64(steps) * step, high)
    }
}
#endif
