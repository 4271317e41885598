// Opus packet framing (RFC 6716 §3): the TOC byte and the frame-packing rules R1–R7 of §3.4, checked
// without decoding or allocating, so a receiver (or the SFU) can reject a broken payload cheaply.
//
//     TOC byte (§3.1):   0 1 2 3 4 5 6 7
//                       +-+-+-+-+-+-+-+-+
//                       | config  |s| c |
//                       +-+-+-+-+-+-+-+-+
//
// config selects mode, bandwidth and frame duration (Table 2); s = stereo; c = frames per packet code:
// 0 = one frame, 1 = two equal frames, 2 = two frames with an explicit first length, 3 = signalled count.

// MARK: - Types

/// What an Opus packet's TOC byte and framing say about it.
public struct OpusPacketInfo: Sendable, Equatable {
    /// The codec mode a configuration selects (RFC 6716 §3.1, Table 2).
    public enum Mode: Sendable, Equatable {
        /// SILK only: speech, up to wideband.
        case silk
        /// SILK and CELT together: super-wideband or fullband speech.
        case hybrid
        /// CELT only: music and low delay.
        case celt
    }

    /// Audio bandwidth (RFC 6716 §2).
    public enum Bandwidth: Sendable, Equatable {
        /// 4 kHz (narrowband).
        case narrow
        /// 6 kHz (medium-band).
        case medium
        /// 8 kHz (wideband).
        case wide
        /// 12 kHz (super-wideband).
        case superWide
        /// 20 kHz (fullband).
        case full
    }

    /// Configuration number, 0…31.
    public var configuration: UInt8
    /// Mode selected by the configuration.
    public var mode: Mode
    /// Bandwidth selected by the configuration.
    public var bandwidth: Bandwidth
    /// Duration of each frame in microseconds (2 500…60 000).
    public var frameDurationUs: Int
    /// Whether the frames are stereo.
    public var isStereo: Bool
    /// Frames in the packet (1…48).
    public var frameCount: Int

    /// Duration of the whole packet in microseconds.
    public var durationUs: Int { frameDurationUs * frameCount }
    /// Samples per channel the packet decodes to at 48 kHz, i.e. the RTP timestamp advance (RFC 7587 §4.1).
    public var samplesAt48kHz: Int { durationUs * 48 / 1_000 }

    // MARK: - Public API

    /// Longest frame allowed (RFC 6716 §3.4 R2).
    public static let maxFrameLength = 1_275

    /// Parses and validates an Opus packet's TOC byte and frame packing (RFC 6716 §3.1–§3.4).
    /// - Throws: `RTPPayloadError.emptyPayload` or one of the `opus…` cases naming the broken rule.
    public init(packet: UnsafeRawBufferPointer) throws(RTPPayloadError) {
        guard let toc = packet.first else { throw RTPPayloadError.emptyPayload }   // R1
        configuration = toc >> 3
        isStereo = toc & 0x04 != 0
        (mode, bandwidth, frameDurationUs) = Self.describe(configuration: configuration)
        let count = packet.count
        switch toc & 0x03 {
        case 0:
            // One frame: everything after the TOC byte.
            guard count - 1 <= Self.maxFrameLength else { throw RTPPayloadError.opusFrameTooLong }
            frameCount = 1
        case 1:
            // Two frames of equal size: the rest must split evenly (R3).
            guard (count - 1) % 2 == 0 else { throw RTPPayloadError.opusOddCBRLength }
            guard (count - 1) / 2 <= Self.maxFrameLength else { throw RTPPayloadError.opusFrameTooLong }
            frameCount = 2
        case 2:
            // Two frames: first length coded in 1–2 bytes (so at most 1 275), the second is the remainder (R4).
            var offset = 1
            let first = try Self.readFrameLength(packet, at: &offset)
            guard first <= count - offset else { throw RTPPayloadError.opusTruncated }
            guard count - offset - first <= Self.maxFrameLength else { throw RTPPayloadError.opusFrameTooLong }
            frameCount = 2
        default:
            frameCount = try Self.validateCode3(packet, frameDurationUs: frameDurationUs)
        }
    }

    /// Parses and validates an Opus packet held in an array.
    public init(packet: [UInt8]) throws(RTPPayloadError) {
        self = try packet.withUnsafeBytes { bytes in
            Result { () throws(RTPPayloadError) in try OpusPacketInfo(packet: bytes) }
        }.get()
    }

    // MARK: - Internals

    /// Table 2 of RFC 6716 §3.1.
    static func describe(configuration: UInt8) -> (Mode, Bandwidth, Int) {
        let silkDurations = [10_000, 20_000, 40_000, 60_000]
        let shortDurations = [2_500, 5_000, 10_000, 20_000]
        let index = Int(configuration)
        switch index {
        case 0...3: return (.silk, .narrow, silkDurations[index % 4])
        case 4...7: return (.silk, .medium, silkDurations[index % 4])
        case 8...11: return (.silk, .wide, silkDurations[index % 4])
        case 12...13: return (.hybrid, .superWide, [10_000, 20_000][index % 2])
        case 14...15: return (.hybrid, .full, [10_000, 20_000][index % 2])
        case 16...19: return (.celt, .narrow, shortDurations[index % 4])
        case 20...23: return (.celt, .wide, shortDurations[index % 4])
        case 24...27: return (.celt, .superWide, shortDurations[index % 4])
        default: return (.celt, .full, shortDurations[index % 4])
        }
    }

    /// A frame length coded in one or two bytes (RFC 6716 §3.2.1): 0…251 directly, else 4 × second + first.
    static func readFrameLength(_ packet: UnsafeRawBufferPointer, at offset: inout Int) throws(RTPPayloadError) -> Int {
        guard offset < packet.count else { throw RTPPayloadError.opusTruncated }
        let first = Int(packet[offset])
        offset += 1
        guard first >= 252 else { return first }
        guard offset < packet.count else { throw RTPPayloadError.opusTruncated }
        let second = Int(packet[offset])
        offset += 1
        return second * 4 + first
    }

    /// Code 3 packets (RFC 6716 §3.2.5): frame-count byte |v|p| M |, optional padding, CBR or VBR frames.
    static func validateCode3(_ packet: UnsafeRawBufferPointer, frameDurationUs: Int) throws(RTPPayloadError) -> Int {
        guard packet.count >= 2 else { throw RTPPayloadError.opusTruncated }
        let countByte = packet[1]
        let isVBR = countByte & 0x80 != 0, hasPadding = countByte & 0x40 != 0
        let frames = Int(countByte & 0x3F)
        // R5: at least one frame and at most 120 ms of audio.
        guard frames >= 1, frames * frameDurationUs <= 120_000 else { throw RTPPayloadError.opusInvalidFrameCount }
        var offset = 2
        var padding = 0
        if hasPadding {
            // Each 255 adds 254 bytes and continues; any other value ends the padding length.
            while true {
                guard offset < packet.count else { throw RTPPayloadError.opusTruncated }
                let byte = Int(packet[offset])
                offset += 1
                padding += byte == 255 ? 254 : byte
                if byte != 255 { break }
            }
        }
        var remaining = packet.count - offset - padding
        guard remaining >= 0 else { throw RTPPayloadError.opusTruncated }
        if isVBR {
            // R7: M−1 coded lengths, then the last frame takes what is left.
            for _ in 0..<(frames - 1) {
                let before = offset
                let length = try readFrameLength(packet, at: &offset)
                remaining -= offset - before
                guard length <= Self.maxFrameLength else { throw RTPPayloadError.opusFrameTooLong }
                guard remaining >= length else { throw RTPPayloadError.opusTruncated }
                remaining -= length
            }
            guard remaining >= 0 else { throw RTPPayloadError.opusTruncated }
            guard remaining <= Self.maxFrameLength else { throw RTPPayloadError.opusFrameTooLong }
        } else {
            // R6: the data splits into M equal frames.
            guard remaining % frames == 0 else { throw RTPPayloadError.opusCBRLengthMismatch }
            guard remaining / frames <= Self.maxFrameLength else { throw RTPPayloadError.opusFrameTooLong }
        }
        return frames
    }
}
