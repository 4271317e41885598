import RTCMedia
import RTCWire

/// Media encoded once, before a load test starts, that a publisher then sends over and over: no
/// encoder runs while the load runs, so the load generator's cost stays with the packets.
///
/// Video loops are two seconds of a VP8 test pattern whose first frame is a key frame (so a
/// subscriber sees a key frame every two seconds, as with a real encoder's key-frame interval),
/// encoded at a real bitrate and cut into RTP payloads; audio loops are one second of an Opus
/// tone in 20 ms packets. Each video frame shows its index in the loop (`TestPatternReader`).
/// A scalable AV1 loop (`av1SVC`) holds temporal units of two spatial layers (L2T3_KEY) with the
/// Dependency Descriptor of each packet.
package struct EncodedLoop: Sendable {
    /// One frame (or one audio packet) and its RTP payloads.
    package struct Frame: Sendable {
        /// RTP payloads: a VP8 descriptor (X, I, 15-bit PictureID) and a slice of the frame, or
        /// one Opus packet. The publisher writes each frame's own PictureID at send time.
        package var payloads: [[UInt8]]
        package var isKeyFrame: Bool
        /// The Dependency Descriptor of each payload (scalable AV1), empty without; the sender
        /// adds its frame-number offset to the frame number in bytes 1–2 (av1-rtp-spec §A.8.3).
        package var descriptors: [[UInt8]] = []
    }

    package let frames: [Frame]
    /// Time between frames, µs.
    package let frameInterval: Int64
    /// RTP timestamp units between frames.
    package let ticksPerFrame: UInt32
    package let clockRate: UInt32
    /// True for VP8 (payloads start with a descriptor whose PictureID is rewritten).
    package let isVP8: Bool
    /// True for video (VP8 or AV1), false for Opus.
    package let isVideo: Bool
    /// Dependency Descriptor frames in one pass (the sender's frame-number step per pass); 0 without.
    package let descriptorFrames: Int

    init(frames: [Frame], frameInterval: Int64, ticksPerFrame: UInt32, clockRate: UInt32, isVP8: Bool, isVideo: Bool? = nil,
         descriptorFrames: Int = 0) {
        self.frames = frames
        self.frameInterval = frameInterval
        self.ticksPerFrame = ticksPerFrame
        self.clockRate = clockRate
        self.isVP8 = isVP8
        self.isVideo = isVideo ?? isVP8
        self.descriptorFrames = descriptorFrames
    }

    /// Payload bits per second over one pass.
    package var bitrate: Int {
        let bytes = frames.reduce(0) { $0 + $1.payloads.reduce(0) { $0 + $1.count } }
        let seconds = Double(frameInterval) * Double(frames.count) / 1e6
        return Int(Double(bytes * 8) / seconds)
    }

    /// RTP packets per second.
    package var packetRate: Double {
        Double(frames.reduce(0) { $0 + $1.payloads.count }) * 1e6 / (Double(frameInterval) * Double(frames.count))
    }

    // MARK: - Making loops

    /// Two seconds of VP8 at `width`×`height`, `frameRate` and about `bitrate` bits per second.
    /// - Parameter maxPayloadSize: VP8 payload bytes per packet, descriptor included.
    package static func vp8(width: Int, height: Int, frameRate: Int, bitrate: Int, seconds: Int = 2,
                            maxPayloadSize: Int = 1_100) throws -> EncodedLoop {
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: frameRate)
        var configuration = VP8Encoder.Configuration(width: width, height: height)
        configuration.bitrate = bitrate
        configuration.frameRate = frameRate
        configuration.keyFrameInterval = 100_000
        configuration.cpuUsed = -4
        let encoder = try VP8Encoder(configuration: configuration)
        var packetizer = VP8Packetizer(maxPayloadSize: maxPayloadSize, initialPictureID: 0)
        var frames: [Frame] = []
        let count = frameRate * seconds
        for number in 0..<count {
            let frame = grainyFrame(pattern, number: number, height: height)
            guard let encoded = try encoder.encode(frame, forceKeyFrame: number == 0) else { continue }
            frames.append(Frame(payloads: packetizer.packetize(encoded), isKeyFrame: encoded.isKeyFrame))
        }
        return EncodedLoop(frames: frames, frameInterval: 1_000_000 / Int64(frameRate),
                           ticksPerFrame: UInt32(90_000 / frameRate), clockRate: 90_000, isVP8: true)
    }

    /// Two seconds of AV1 in two spatial layers (L2T3_KEY: `width`×`height` and half that, three
    /// temporal layers) at about `bitrate` bits per second, one frame per temporal unit of
    /// the loop, each layer frame packetized with its Dependency Descriptor (frame numbers from 0).
    package static func av1SVC(width: Int, height: Int, frameRate: Int, bitrate: Int, seconds: Int = 2,
                               maxPayloadSize: Int = 1_100) throws -> EncodedLoop {
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: frameRate)
        var configuration = AV1Encoder.Configuration(width: width, height: height)
        configuration.bitrate = bitrate
        configuration.frameRate = frameRate
        configuration.keyFrameInterval = 0
        configuration.scalabilityMode = .l2t3Key
        let encoder = try AV1Encoder(configuration: configuration)
        var packetizer = AV1Packetizer(maxPayloadSize: maxPayloadSize)
        var writer = DependencyDescriptorWriter(firstFrameNumber: 0)
        var frames: [Frame] = []
        var descriptorFrames = 0
        for number in 0 ..< frameRate * seconds {
            let frame = grainyFrame(pattern, number: number, height: height)
            guard let unit = try encoder.encode(frame, forceKeyFrame: number == 0), let mode = unit.scalabilityMode else { continue }
            var payloads: [[UInt8]] = [], descriptors: [[UInt8]] = []
            try unit.data.withUnsafeBytes { data in
                for layer in unit.layerFrames {
                    writer.beginFrame(mode: mode, templateID: layer.templateID, startsSequence: layer.isKeyFrame)
                    descriptorFrames += 1
                    var layerPayloads: [[UInt8]] = []
                    try packetizer.packetize(UnsafeRawBufferPointer(rebasing: data[layer.range]), isKeyFrame: layer.isKeyFrame) { payload, _ in
                        layerPayloads.append(Array(payload))
                    }
                    for (index, payload) in layerPayloads.enumerated() {
                        var value = [UInt8](repeating: 0, count: DependencyDescriptorWriter.maxLength)
                        let length = value.withUnsafeMutableBytes { writer.write(into: $0, first: index == 0, last: index == layerPayloads.count - 1) } ?? 0
                        payloads.append(payload)
                        descriptors.append(Array(value.prefix(length)))
                    }
                }
            }
            frames.append(Frame(payloads: payloads, isKeyFrame: unit.isKeyFrame, descriptors: descriptors))
        }
        return EncodedLoop(frames: frames, frameInterval: 1_000_000 / Int64(frameRate), ticksPerFrame: UInt32(90_000 / frameRate),
                           clockRate: 90_000, isVP8: false, isVideo: true, descriptorFrames: descriptorFrames)
    }

    /// Two seconds of VP9 in two spatial layers (L2T3_KEY with libvpx SVC: `width`×`height` and
    /// half that, three temporal layers) at about `bitrate` bits per second, each picture's layer
    /// frames packetized with RFC 9628 descriptors (non-flexible mode, the SS on the key picture).
    /// Picture IDs start again with each pass, which a forwarder passes on as they are.
    package static func vp9SVC(width: Int, height: Int, frameRate: Int, bitrate: Int, seconds: Int = 2,
                               maxPayloadSize: Int = 1_100) throws -> EncodedLoop {
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: frameRate)
        var configuration = VPXEncoder.Configuration(width: width, height: height, codec: .vp9)
        configuration.bitrate = bitrate
        configuration.frameRate = frameRate
        configuration.keyFrameInterval = 100_000
        configuration.scalabilityMode = .l2t3Key
        let encoder = try VPXEncoder(configuration: configuration)
        var packetizer = VP9Packetizer(maxPayloadSize: maxPayloadSize, initialPictureID: 0)
        var frames: [Frame] = []
        for number in 0 ..< frameRate * seconds {
            let frame = grainyFrame(pattern, number: number, height: height)
            guard let picture = try encoder.encode(frame, forceKeyFrame: number == 0) else { continue }
            frames.append(Frame(payloads: packetizer.packetize(picture), isKeyFrame: picture.isKeyFrame))
        }
        return EncodedLoop(frames: frames, frameInterval: 1_000_000 / Int64(frameRate), ticksPerFrame: UInt32(90_000 / frameRate),
                           clockRate: 90_000, isVP8: false, isVideo: true)
    }

    /// One second of a 440 Hz tone as mono Opus, 20 ms per packet.
    package static func opus(bitrate: Int = 32_000, seconds: Int = 1) throws -> EncodedLoop {
        var configuration = OpusEncoder.Configuration()
        configuration.bitrate = bitrate
        configuration.channels = 1
        let encoder = try OpusEncoder(configuration: configuration)
        var tone = SineToneGenerator(frequency: 440, amplitude: 0.3)
        let frames = (0..<(50 * seconds)).map { _ in
            Frame(payloads: [(try? encoder.encode(tone.next(frameCount: 960))) ?? [0xF8, 0xFF, 0xFE]], isKeyFrame: false)
        }
        return EncodedLoop(frames: frames, frameInterval: 20_000, ticksPerFrame: 960, clockRate: 48_000, isVP8: false)
    }

    /// Frame `number` of the pattern with grain: a test pattern alone compresses far below a
    /// camera's bitrate; grain (fixed per frame, so the encoder cannot predict it) brings the
    /// frames to their real size.
    private static func grainyFrame(_ pattern: TestPatternGenerator, number: Int, height: Int) -> VideoFrame {
        var frame = pattern.videoFrame(number: number)
        addGrain(to: &frame.buffer, seed: UInt32(truncatingIfNeeded: number &* 2_654_435_761) | 1, fromRow: height / 6 + 2)
        return frame
    }

    /// Adds ±`amplitude` pseudo-random grain to the luma rows from `fromRow` on (below the
    /// pattern's frame-number band, which stays readable).
    private static func addGrain(to buffer: inout VideoPixelBuffer, seed: UInt32, fromRow: Int, amplitude: Int = 10) {
        let width = buffer.width, height = buffer.height
        var state = seed
        buffer.withMutablePlane(0) { luma in
            for index in (min(height, fromRow) * width)..<(width * height) {
                // xorshift32: cheap and deterministic, enough to defeat prediction.
                state ^= state << 13; state ^= state >> 17; state ^= state << 5
                let grain = Int(state % UInt32(2 * amplitude + 1)) - amplitude
                luma[index] = UInt8(clamping: Int(luma[index]) + grain)
            }
        }
    }
}
