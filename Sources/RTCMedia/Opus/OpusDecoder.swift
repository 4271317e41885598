// Opus decoder over libopus, with the two loss tools Opus offers a receiver: packet-loss concealment
// (decode with no packet) and in-band FEC (rebuild a lost frame from the redundancy in the next one,
// RFC 6716 §2.1.7). One instance is not thread-safe: use it from one thread.
import COpus

// MARK: - Types

/// Decodes Opus packets to interleaved 16-bit PCM.
public final class OpusDecoder {
    /// Output sample rate (48 000 for WebRTC audio).
    public let sampleRate: Int
    /// Output channels, 1 or 2, whatever the packets carry.
    public let channels: Int
    private let state: OpaquePointer
    /// Scratch PCM for the convenience methods: room for the longest Opus packet (120 ms).
    private var scratch: [Int16]

    // MARK: - Public API

    /// Creates a decoder.
    /// - Parameters:
    ///   - sampleRate: 8 000, 12 000, 16 000, 24 000 or 48 000.
    ///   - channels: 1 or 2.
    public init(sampleRate: Int = 48_000, channels: Int = 1) throws {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(sampleRate) else {
            throw OpusError.unsupportedConfiguration("sampleRate \(sampleRate)")
        }
        guard channels == 1 || channels == 2 else { throw OpusError.unsupportedConfiguration("channels \(channels)") }
        var error: Int32 = OPUS_OK
        guard let state = opus_decoder_create(Int32(sampleRate), Int32(channels), &error), error == OPUS_OK else {
            throw OpusError(code: error)
        }
        self.state = state
        self.sampleRate = sampleRate
        self.channels = channels
        self.scratch = [Int16](repeating: 0, count: sampleRate * 120 / 1_000 * channels)
    }

    deinit { opus_decoder_destroy(state) }

    /// Samples per channel of the longest packet Opus allows (120 ms).
    public var maxFrameCount: Int { sampleRate * 120 / 1_000 }

    /// Frames (per channel) of the last packet decoded or concealed; 20 ms before any packet.
    public var lastPacketDuration: Int {
        var value: Int32 = 0
        guard srtc_opus_get_last_packet_duration(state, &value) == OPUS_OK, value > 0 else { return sampleRate / 50 }
        return Int(value)
    }

    /// Decodes one packet into `output` without allocating.
    /// - Returns: frames (samples per channel) written.
    /// - Throws: `OpusError.invalidPacket` for corrupt or empty data, `.bufferTooSmall` when `output` is short.
    public func decode(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        guard let data = packet.baseAddress, !packet.isEmpty else { throw OpusError.invalidPacket }
        return try run(data: data, length: packet.count, output: output, frames: output.count / channels, fec: false)
    }

    /// Conceals one lost frame (packet-loss concealment) of `output.count / channels` frames.
    /// - Throws: `OpusError.badArgument` when that is not a multiple of 2.5 ms.
    public func concealLoss(into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        try run(data: nil, length: 0, output: output, frames: output.count / channels, fec: false)
    }

    /// Rebuilds the frame lost just before `nextPacket` from that packet's in-band FEC data, or conceals it
    /// when the packet carries none. `output.count / channels` must be the lost frame's duration.
    public func decodeFEC(from nextPacket: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<Int16>) throws -> Int {
        guard let data = nextPacket.baseAddress, !nextPacket.isEmpty else { throw OpusError.invalidPacket }
        return try run(data: data, length: nextPacket.count, output: output, frames: output.count / channels, fec: true)
    }

    /// Decodes one packet, or conceals a lost one when `packet` is nil (using the last packet's duration).
    public func decode(_ packet: [UInt8]?) throws -> AudioPCMBuffer {
        let duration = lastPacketDuration
        let frames = try scratch.withUnsafeMutableBufferPointer { output in
            guard let packet else {
                return try concealLoss(into: UnsafeMutableBufferPointer(rebasing: output[0..<(duration * channels)]))
            }
            return try packet.withUnsafeBytes { try decode($0, into: output) }
        }
        return AudioPCMBuffer(int16: Array(scratch[0..<(frames * channels)]), sampleRate: sampleRate, channels: channels)
    }

    /// Rebuilds the frame lost before `nextPacket` from its FEC data (duration: the last packet's).
    /// Decode `nextPacket` itself normally afterwards.
    public func decodeFEC(from nextPacket: [UInt8]) throws -> AudioPCMBuffer {
        let duration = lastPacketDuration
        let frames = try scratch.withUnsafeMutableBufferPointer { output in
            try nextPacket.withUnsafeBytes {
                try decodeFEC(from: $0, into: UnsafeMutableBufferPointer(rebasing: output[0..<(duration * channels)]))
            }
        }
        return AudioPCMBuffer(int16: Array(scratch[0..<(frames * channels)]), sampleRate: sampleRate, channels: channels)
    }

    /// Forgets the decoding history (after a stream switch).
    public func reset() { _ = srtc_opus_reset_decoder(state) }

    // MARK: - Internals

    private func run(data: UnsafeRawPointer?, length: Int, output: UnsafeMutableBufferPointer<Int16>,
                     frames: Int, fec: Bool) throws -> Int {
        guard let outBase = output.baseAddress, frames > 0 else { throw OpusError.bufferTooSmall }
        guard length <= Int(Int32.max) else { throw OpusError.invalidPacket }
        let decoded = opus_decode(state, data?.assumingMemoryBound(to: UInt8.self), Int32(length), outBase,
                                  Int32(min(frames, maxFrameCount)), fec ? 1 : 0)
        return Int(try OpusError.check(decoded))
    }
}
