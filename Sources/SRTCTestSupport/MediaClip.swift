import RTCMedia

/// Media encoded once and sent by many publishers: a few seconds of Opus tone and, per simulcast
/// layer size, VP8 test-pattern frames numbered 0, 1, 2… in their pixels, the first a key frame
/// and the rest delta frames, so a receiver that decodes them can tell which frame it got.
/// Encoding live for twenty publishers would take the CPU the soak is meant to measure.
public final class MediaClip: Sendable {
    /// Frames per second of the video (and the RTP timestamp step: 90 000 / frameRate).
    public static let frameRate = 15

    /// Opus payloads of 20 ms each.
    public let audio: [[UInt8]]
    private let videoBySize: [Size: [EncodedVideoFrame]]

    private struct Size: Hashable { let width: Int; let height: Int }

    /// - Parameters:
    ///   - sizes: the layer sizes to encode.
    ///   - frames: video frames per layer (the clip restarts with its key frame after them).
    ///   - toneHz: the audio tone.
    public init(sizes: [(width: Int, height: Int)], frames: Int = 90, toneHz: Double = 440) throws {
        let opus = try OpusEncoder()
        var tone = SineToneGenerator(frequency: toneHz)
        audio = try (0..<50).map { _ in try opus.encode(tone.next(frameCount: 960)) }
        var video: [Size: [EncodedVideoFrame]] = [:]
        for size in sizes {
            let encoder = try Self.encoder(width: size.width, height: size.height)
            let pattern = try TestPatternGenerator(width: size.width, height: size.height, frameRate: Self.frameRate)
            var encoded: [EncodedVideoFrame] = []
            for number in 0..<frames {
                if let frame = try encoder.encode(pattern.videoFrame(number: number), forceKeyFrame: number == 0) { encoded.append(frame) }
            }
            video[Size(width: size.width, height: size.height)] = encoded
        }
        videoBySize = video
    }

    /// Video frames per layer: frame numbers run 0 ..< frameCount, then start over.
    public var frameCount: Int { videoBySize.values.first?.count ?? 1 }

    /// The frames of the layer of this size, if the clip has one.
    public func video(width: Int, height: Int) -> [EncodedVideoFrame]? { videoBySize[Size(width: width, height: height)] }

    /// The VP8 encoder every test publisher uses: about 3 bits per pixel per second, key frames
    /// only on request.
    static func encoder(width: Int, height: Int) throws -> VP8Encoder {
        var configuration = VP8Encoder.Configuration(width: width, height: height)
        configuration.bitrate = width * height * 3
        configuration.cpuUsed = -12
        configuration.keyFrameInterval = 0
        return try VP8Encoder(configuration: configuration)
    }
}
