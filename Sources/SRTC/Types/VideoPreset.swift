/// Encoding parameters of a local video track: size of the (big) layer, frame rate and bitrate.
/// Frames pushed at another size are encoded at their own size; the preset's bitrate and frame
/// rate still apply.
public struct VideoPreset: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var frameRate: Int
    /// Target bitrate of the big layer in bits per second.
    public var maxBitrate: Int

    public init(width: Int, height: Int, frameRate: Int, maxBitrate: Int) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.maxBitrate = maxBitrate
    }

    /// 320×180, 15 fps, 150 kbps.
    public static let h180p = VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 150_000)
    /// 640×360, 30 fps, 500 kbps.
    public static let h360p = VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 500_000)
    /// 960×540, 30 fps, 1 Mbps.
    public static let h540p = VideoPreset(width: 960, height: 540, frameRate: 30, maxBitrate: 1_000_000)
    /// 1280×720, 30 fps, 1.7 Mbps (the default).
    public static let h720p = VideoPreset(width: 1280, height: 720, frameRate: 30, maxBitrate: 1_700_000)
    /// 1920×1080, 30 fps, 3 Mbps.
    public static let h1080p = VideoPreset(width: 1920, height: 1080, frameRate: 30, maxBitrate: 3_000_000)

    /// The small simulcast layer: a quarter of each dimension (even sizes), 15 fps, an eighth of the bitrate.
    var smallLayer: VideoPreset {
        VideoPreset(width: max(2, (width / 4) & ~1), height: max(2, (height / 4) & ~1),
                    frameRate: min(frameRate, 15), maxBitrate: max(100_000, maxBitrate / 8))
    }
}

/// Camera capture presets (Apple platforms); the same values as `VideoPreset`.
public typealias CameraPreset = VideoPreset
/// Screen capture presets (Apple platforms); the same values as `VideoPreset`.
public typealias ScreenPreset = VideoPreset

/// Encoding parameters of a local audio track (Opus, 48 kHz, 20 ms frames).
public struct AudioPreset: Sendable, Equatable {
    /// Target bitrate in bits per second.
    public var bitrate: Int
    /// 1 (mono) or 2 (stereo).
    public var channels: Int

    public init(bitrate: Int, channels: Int = 1) {
        self.bitrate = bitrate
        self.channels = max(1, min(2, channels))
    }

    /// Voice: mono, 32 kbps.
    public static let speech = AudioPreset(bitrate: 32_000)
    /// Music and mixed content: mono, 64 kbps.
    public static let music = AudioPreset(bitrate: 64_000)
}

/// Microphone capture presets (Apple platforms); the same values as `AudioPreset`.
public typealias MicPreset = AudioPreset
