// Opus encoder over libopus, configured for real-time speech and music at 48 kHz (RFC 7587 §4.2 uses a
// 48 kHz RTP clock whatever the input rate). One instance is not thread-safe: use it from one thread.
import COpus

// MARK: - Types

/// Encodes PCM into Opus packets, one packet per frame (20 ms by default).
public final class OpusEncoder {
    /// What the encoder optimises for (`OPUS_APPLICATION_*`).
    public enum Application: Sendable {
        /// Speech: best intelligibility at low bitrates.
        case voip
        /// Music and mixed content: best fidelity.
        case audio
        /// Lowest algorithmic delay; disables speech-optimised modes.
        case restrictedLowDelay
    }

    /// Encoder settings; every value has a real-time default.
    public struct Configuration: Sendable, Equatable {
        /// Input sample rate: 8 000, 12 000, 16 000, 24 000 or 48 000.
        public var sampleRate: Int = 48_000
        /// 1 (mono) or 2 (stereo).
        public var channels: Int = 1
        /// Frame duration in milliseconds: 10, 20, 40 or 60 (20 is what WebRTC sends).
        public var frameDurationMs: Int = 20
        /// Target bitrate in bits per second (6 000…510 000).
        public var bitrate: Int = 32_000
        /// Whether to embed low-bitrate redundancy of the previous frame (in-band FEC, RFC 6716 §2.1.7).
        public var inbandFEC: Bool = true
        /// The loss the encoder plans FEC for, 0…100 percent; FEC is only spent when this is above 0.
        public var expectedPacketLossPercent: Int = 10
        /// Discontinuous transmission: during silence, emit tiny packets the sender may skip.
        public var dtx: Bool = false
        /// CPU/quality trade-off, 0 (fastest) … 10 (best).
        public var complexity: Int = 9
        /// Speech, music or restricted low delay.
        public var application: Application = .voip

        /// The defaults: 48 kHz mono, 20 ms, 32 kbit/s, FEC on for 10 % loss, DTX off, complexity 9.
        public init() {}
    }

    /// The settings in force.
    public private(set) var configuration: Configuration
    private let state: OpaquePointer
    /// Scratch output buffer for the convenience methods; 4 000 bytes is libopus's recommended maximum.
    private var scratch = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)

    // MARK: - Public API

    /// Largest packet the encoder can produce into the convenience methods' buffer.
    public static let maxPacketSize = 4_000

    /// Creates an encoder.
    /// - Throws: `OpusError.unsupportedConfiguration` for a value Opus cannot use, or libopus's error.
    public init(configuration: Configuration = Configuration()) throws {
        try Self.validate(configuration)
        let application: Int32 = switch configuration.application {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
        var error: Int32 = OPUS_OK
        guard let state = opus_encoder_create(Int32(configuration.sampleRate), Int32(configuration.channels),
                                              application, &error), error == OPUS_OK else {
            throw OpusError(code: error)
        }
        self.state = state
        self.configuration = configuration
        try apply(configuration)
    }

    deinit { opus_encoder_destroy(state) }

    /// Samples per channel in one frame (960 for 20 ms at 48 kHz).
    public var frameSize: Int { configuration.sampleRate * configuration.frameDurationMs / 1_000 }

    /// Encodes exactly one frame of interleaved 16-bit PCM without allocating.
    /// - Parameters:
    ///   - pcm: `frameSize * channels` samples.
    ///   - output: where the packet is written; 1 275 bytes hold any single 20 ms packet.
    /// - Returns: the packet length. With DTX, a length of 2 or less means "silence, need not be sent".
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer) throws -> Int {
        try checkFrame(sampleCount: pcm.count)
        guard let outBase = output.baseAddress?.assumingMemoryBound(to: UInt8.self), let inBase = pcm.baseAddress else {
            throw OpusError.bufferTooSmall
        }
        return Int(try OpusError.check(opus_encode(state, inBase, Int32(frameSize), outBase,
                                                   Int32(min(output.count, Int(Int32.max))))))
    }

    /// Encodes exactly one frame of interleaved float PCM without allocating.
    public func encode(_ pcm: UnsafeBufferPointer<Float>, into output: UnsafeMutableRawBufferPointer) throws -> Int {
        try checkFrame(sampleCount: pcm.count)
        guard let outBase = output.baseAddress?.assumingMemoryBound(to: UInt8.self), let inBase = pcm.baseAddress else {
            throw OpusError.bufferTooSmall
        }
        return Int(try OpusError.check(opus_encode_float(state, inBase, Int32(frameSize), outBase,
                                                         Int32(min(output.count, Int(Int32.max))))))
    }

    /// Encodes one frame held in a PCM buffer (integer or float) and returns the packet.
    /// - Throws: `OpusError.pcmFormatMismatch` or `.frameSizeMismatch` when the buffer does not fit the encoder.
    public func encode(_ buffer: AudioPCMBuffer) throws -> [UInt8] {
        guard buffer.sampleRate == configuration.sampleRate, buffer.channels == configuration.channels else {
            throw OpusError.pcmFormatMismatch(expectedSampleRate: configuration.sampleRate,
                                              expectedChannels: configuration.channels)
        }
        let length: Int
        switch buffer.samples {
        case .int16(let samples):
            length = try samples.withUnsafeBufferPointer { pcm in
                try scratch.withUnsafeMutableBytes { try encode(pcm, into: $0) }
            }
        case .float32(let samples):
            length = try samples.withUnsafeBufferPointer { pcm in
                try scratch.withUnsafeMutableBytes { try encode(pcm, into: $0) }
            }
        }
        return Array(scratch[0..<length])
    }

    /// Changes the target bitrate (bits per second) between frames, e.g. on a bandwidth estimate.
    public func setBitrate(_ bitsPerSecond: Int) throws {
        var updated = configuration
        updated.bitrate = bitsPerSecond
        try Self.validate(updated)
        try OpusError.check(srtc_opus_set_bitrate(state, Int32(bitsPerSecond)))
        configuration = updated
    }

    /// Changes the loss percentage FEC is planned for (from receiver reports).
    public func setExpectedPacketLoss(percent: Int) throws {
        var updated = configuration
        updated.expectedPacketLossPercent = percent
        try Self.validate(updated)
        try OpusError.check(srtc_opus_set_packet_loss_perc(state, Int32(percent)))
        configuration = updated
    }

    /// Whether a packet produced with DTX on is a silence marker that need not be transmitted.
    public static func isDTXPacket(length: Int) -> Bool { length <= 2 }

    // MARK: - Internals

    private func checkFrame(sampleCount: Int) throws {
        guard sampleCount == frameSize * configuration.channels else {
            throw OpusError.frameSizeMismatch(expectedFrames: frameSize, actualFrames: sampleCount / configuration.channels)
        }
    }

    private func apply(_ configuration: Configuration) throws {
        try OpusError.check(srtc_opus_set_bitrate(state, Int32(configuration.bitrate)))
        try OpusError.check(srtc_opus_set_complexity(state, Int32(configuration.complexity)))
        try OpusError.check(srtc_opus_set_inband_fec(state, configuration.inbandFEC ? 1 : 0))
        try OpusError.check(srtc_opus_set_packet_loss_perc(state, Int32(configuration.expectedPacketLossPercent)))
        try OpusError.check(srtc_opus_set_dtx(state, configuration.dtx ? 1 : 0))
    }

    private static func validate(_ c: Configuration) throws {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(c.sampleRate) else {
            throw OpusError.unsupportedConfiguration("sampleRate \(c.sampleRate)")
        }
        guard c.channels == 1 || c.channels == 2 else { throw OpusError.unsupportedConfiguration("channels \(c.channels)") }
        guard [10, 20, 40, 60].contains(c.frameDurationMs) else {
            throw OpusError.unsupportedConfiguration("frameDurationMs \(c.frameDurationMs)")
        }
        guard (6_000...510_000).contains(c.bitrate) else { throw OpusError.unsupportedConfiguration("bitrate \(c.bitrate)") }
        guard (0...100).contains(c.expectedPacketLossPercent) else {
            throw OpusError.unsupportedConfiguration("expectedPacketLossPercent \(c.expectedPacketLossPercent)")
        }
        guard (0...10).contains(c.complexity) else { throw OpusError.unsupportedConfiguration("complexity \(c.complexity)") }
    }
}
