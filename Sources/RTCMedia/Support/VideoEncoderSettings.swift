// What every real-time video encoder here is configured with, checked and applied once:
// `VPXEncoder` (libvpx), `AV1Encoder` (libaom) and `H264Encoder` (OpenH264) each keep only what
// is their own library's (speed, quantizers, error resilience) beside these settings.

/// The settings common to the real-time video encoders, with their defaults.
public struct VideoEncoderSettings: Sendable, Equatable {
    /// Width in pixels of the frames to encode; a frame of another size re-creates the encoder.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Target bitrate in bits per second, 10 000…100 000 000.
    public var bitrate: Int = 1_000_000
    /// Expected frames per second, 1…240; guides rate control.
    public var frameRate: Int = 30
    /// Frames between automatic key frames; 0 means key frames only on request (and the first).
    public var keyFrameInterval: Int = 3_000
    /// Encoder threads, 1…16 (1 keeps a core free for the rest of the media path).
    public var threads: Int = 1

    /// Real-time defaults for a `width`×`height` stream.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The accepted bitrates, bits per second.
    public static let bitrates = 10_000 ... 100_000_000

    /// The first setting out of range, described for an `invalidConfiguration` error; nil when all
    /// are valid.
    /// - Parameter smallestDimension: the encoder's smallest width and height (libvpx takes 2, libaom
    ///   and OpenH264 16).
    public func invalidSetting(smallestDimension: Int) -> String? {
        let dimensions = smallestDimension ... VideoPixelBuffer.maxDimension
        guard dimensions.contains(width), dimensions.contains(height) else { return "size \(width)x\(height)" }
        guard Self.bitrates.contains(bitrate) else { return "bitrate \(bitrate)" }
        guard (1 ... 240).contains(frameRate) else { return "frameRate \(frameRate)" }
        guard (1 ... 16).contains(threads) else { return "threads \(threads)" }
        guard keyFrameInterval >= 0 else { return "keyFrameInterval \(keyFrameInterval)" }
        return nil
    }

    /// These settings for frames of `width`×`height` (the encoder is re-created for them), or nil
    /// when they already are.
    func resized(width: Int, height: Int) -> VideoEncoderSettings? {
        guard width != self.width || height != self.height else { return nil }
        var resized = self
        resized.width = width
        resized.height = height
        return resized
    }
}

/// The fields libvpx's `vpx_codec_enc_cfg_t` and libaom's `aom_codec_enc_cfg_t` share under one
/// name and type (the enum-typed ones, pass, rate-control mode and key-frame mode, differ in type
/// and are set by each encoder): both conform as imported, so the real-time rate control is
/// applied to either by one function (`applyRealTime`).
protocol RealTimeRateControlConfig {
    var g_w: UInt32 { get set }
    var g_h: UInt32 { get set }
    var g_threads: UInt32 { get set }
    var g_lag_in_frames: UInt32 { get set }
    var rc_target_bitrate: UInt32 { get set }
    var rc_dropframe_thresh: UInt32 { get set }
    var rc_undershoot_pct: UInt32 { get set }
    var rc_overshoot_pct: UInt32 { get set }
    var rc_buf_initial_sz: UInt32 { get set }
    var rc_buf_optimal_sz: UInt32 { get set }
    var rc_buf_sz: UInt32 { get set }
    var kf_min_dist: UInt32 { get set }
    var kf_max_dist: UInt32 { get set }
}

/// The rate controller's buffer model of one encoder library: how far a frame may fall below and
/// above its share of the bitrate (percent), and the decoder buffer it models (milliseconds).
struct RateControlBuffer {
    var undershootPercent: UInt32
    var overshootPercent: UInt32
    var initialMilliseconds: UInt32
    var optimalMilliseconds: UInt32 = 600
    var sizeMilliseconds: UInt32 = 1_000
}

extension RealTimeRateControlConfig {
    /// Sets what a real-time sender needs from `settings`: the size, threads, no look-ahead (each
    /// frame out as it goes in), the target bitrate in kbit/s, the key-frame distance, frames
    /// skipped below `dropFrameThreshold` percent of buffer fullness (0: never), and `buffer`.
    mutating func applyRealTime(_ settings: VideoEncoderSettings, dropFrameThreshold: Int = 0, buffer: RateControlBuffer) {
        g_w = UInt32(settings.width)
        g_h = UInt32(settings.height)
        g_threads = UInt32(settings.threads)
        g_lag_in_frames = 0
        rc_target_bitrate = UInt32(settings.bitrate / 1_000)
        rc_dropframe_thresh = UInt32(dropFrameThreshold)
        rc_undershoot_pct = buffer.undershootPercent
        rc_overshoot_pct = buffer.overshootPercent
        rc_buf_initial_sz = buffer.initialMilliseconds
        rc_buf_optimal_sz = buffer.optimalMilliseconds
        rc_buf_sz = buffer.sizeMilliseconds
        kf_min_dist = 0
        kf_max_dist = UInt32(max(settings.keyFrameInterval, 0))
    }
}

/// An encoder's configuration: the common `settings` and its library's own fields; the common ones
/// read and write as its own (`configuration.bitrate`).
@dynamicMemberLookup
public protocol VideoEncoderConfiguration: Sendable, Equatable {
    var settings: VideoEncoderSettings { get set }
}

extension VideoEncoderConfiguration {
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<VideoEncoderSettings, Value>) -> Value {
        get { settings[keyPath: keyPath] }
        set { settings[keyPath: keyPath] = newValue }
    }
}
