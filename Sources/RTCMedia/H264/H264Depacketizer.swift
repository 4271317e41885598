// The one reading of H.264 RTP payloads in packetization-mode 1 (RFC 6184 §6.3): single NAL units
// (§5.6), STAP-A (§5.7.1) and FU-A (§5.8) turned back into Annex B NAL units. The in-order
// `H264FrameAssembler` and the reordering `VideoJitterBuffer` both feed an access unit's payloads
// through it, in sequence order.

/// Appends the NAL units of consecutive RTP payloads of one access unit to an Annex B buffer.
public struct H264Depacketizer: FrameDepacketizer {
    /// An FU-A fragment is open (its end has not come yet).
    public private(set) var inFragment = false
    /// The access unit so far holds an IDR slice.
    public private(set) var hasIDR = false
    /// The access unit so far has an IDR slice (`FrameDepacketizer`).
    public var hasKeyFrame: Bool { hasIDR }

    public init() {}

    /// Starts a new access unit.
    public mutating func reset() {
        inFragment = false
        hasIDR = false
    }

    /// Appends `payload`'s NAL units (with start codes) to `output`.
    /// - Throws: `RTPPayloadError.h264UnsupportedNALType` (interleaved-mode types, the forbidden
    ///   bit) or `.h264Truncated` (a STAP-A size past the end, a fragment out of order); `output`
    ///   may then hold part of the payload.
    public mutating func append(_ payload: UnsafeRawBufferPointer, to output: inout [UInt8]) throws(RTPPayloadError) {
        guard let header = payload.first else { throw .emptyPayload }
        guard header & 0x80 == 0 else { throw .h264UnsupportedNALType(header) }
        let type = header & 0x1F
        switch type {
        case 1...23:
            guard !inFragment else { throw .h264Truncated }
            appendUnit(payload, to: &output)
        case H264.NALType.stapA:
            guard !inFragment else { throw .h264Truncated }
            var offset = 1
            guard payload.count > 3 else { throw .h264Truncated }
            while offset < payload.count {
                guard offset + 2 <= payload.count else { throw .h264Truncated }
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                guard size > 0, offset + 2 + size <= payload.count else { throw .h264Truncated }
                appendUnit(UnsafeRawBufferPointer(rebasing: payload[(offset + 2)..<(offset + 2 + size)]), to: &output)
                offset += 2 + size
            }
        case H264.NALType.fuA:
            guard payload.count > 2 else { throw .h264Truncated }
            let fu = payload[1]
            let start = fu & 0x80 != 0, end = fu & 0x40 != 0
            if start {
                guard !inFragment else { throw .h264Truncated }
                // The original NAL header: F and NRI from the indicator, the type from the FU header.
                output.append(contentsOf: H264.startCode)
                output.append(header & 0xE0 | fu & 0x1F)
                if fu & 0x1F == H264.NALType.idr { hasIDR = true }
                inFragment = true
            } else {
                guard inFragment else { throw .h264Truncated }
            }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[2...]))
            if end { inFragment = false }
        default:
            throw .h264UnsupportedNALType(type)
        }
    }

    /// Whether a payload begins a NAL unit (a single NAL unit, a STAP-A, or an FU-A's first
    /// fragment), i.e. may be the first packet of an access unit; false for malformed payloads.
    public static func startsNALUnit(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let header = payload.first, header & 0x80 == 0 else { return false }
        switch header & 0x1F {
        case 1...23, H264.NALType.stapA: return true
        case H264.NALType.fuA: return payload.count > 2 && payload[1] & 0x80 != 0
        default: return false
        }
    }

    /// Whether a payload carries a sequence parameter set (a single SPS NAL unit, or a STAP-A
    /// holding one): the first packet of a key access unit, as WebRTC senders put SPS and PPS
    /// before every IDR. (An IDR slice's own packet comes after them, so it does not count: a
    /// receiver that jumped to it would lose the parameter sets.) False for malformed payloads.
    public static func carriesSPS(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let header = payload.first, header & 0x80 == 0 else { return false }
        switch header & 0x1F {
        case H264.NALType.sps:
            return true
        case H264.NALType.stapA:
            var offset = 1
            while offset + 2 < payload.count {
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                guard size > 0, offset + 2 + size <= payload.count else { return false }
                if payload[offset + 2] & 0x1F == H264.NALType.sps { return true }
                offset += 2 + size
            }
            return false
        default:
            return false
        }
    }

    private mutating func appendUnit(_ unit: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(contentsOf: H264.startCode)
        output.append(contentsOf: unit)
        if unit[0] & 0x1F == H264.NALType.idr { hasIDR = true }
    }
}
