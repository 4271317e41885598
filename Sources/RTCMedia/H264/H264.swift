// H.264 facts the RTP layer and the SFU need without decoding (RFC 6184, ITU-T H.264 §7.4.1):
// NAL unit types, key frames from an RTP payload, and Annex B start-code splitting.

/// H.264 NAL unit helpers.
public enum H264 {
    /// NAL unit types (H.264 Table 7-1) and RTP payload structures (RFC 6184 §5.4).
    public enum NALType {
        public static let slice: UInt8 = 1
        /// Coded slice of an IDR picture: decodable without earlier pictures.
        public static let idr: UInt8 = 5
        public static let sei: UInt8 = 6
        public static let sps: UInt8 = 7
        public static let pps: UInt8 = 8
        /// Single-time aggregation packet (RFC 6184 §5.7.1).
        public static let stapA: UInt8 = 24
        /// Fragmentation unit (RFC 6184 §5.8).
        public static let fuA: UInt8 = 28
    }

    /// Whether an RTP payload (packetization-mode 0 or 1) starts a key frame: it carries an SPS or
    /// an IDR slice, as a single NAL unit, inside a STAP-A, or as the first fragment of an FU-A.
    /// Reads only the payload's headers; false for malformed payloads.
    @inline(__always)
    public static func isKeyFrame(payload: UnsafeRawBufferPointer) -> Bool {
        guard let first = payload.first else { return false }
        let type = first & 0x1F
        switch type {
        case NALType.idr, NALType.sps:
            return true
        case NALType.stapA:
            // STAP-A: [header][size16][NAL]... (RFC 6184 §5.7.1)
            var offset = 1
            while offset + 2 < payload.count {
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                guard size > 0, offset + 2 + size <= payload.count else { return false }
                let nal = payload[offset + 2] & 0x1F
                if nal == NALType.idr || nal == NALType.sps { return true }
                offset += 2 + size
            }
            return false
        case NALType.fuA:
            // FU-A: [indicator][header: S E R type] (RFC 6184 §5.8); the start fragment of an IDR.
            guard payload.count >= 2 else { return false }
            let header = payload[1]
            return header & 0x80 != 0 && (header & 0x1F == NALType.idr || header & 0x1F == NALType.sps)
        default:
            return false
        }
    }

    /// `isKeyFrame(payload:)` for an array.
    public static func isKeyFrame(payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { isKeyFrame(payload: $0) }
    }

    /// The NAL units of an Annex B byte stream (start codes 00 00 01 or 00 00 00 01 removed), as
    /// ranges into `stream`. Bytes before the first start code are skipped.
    public static func nalUnits(annexB stream: UnsafeRawBufferPointer) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var start: Int?
        var i = 0
        while i + 2 < stream.count {
            if stream[i] == 0, stream[i + 1] == 0, stream[i + 2] == 1 {
                if let start {
                    // A four-byte start code's leading zero belongs to the code, not to the unit.
                    var end = i
                    if end > start, stream[end - 1] == 0 { end -= 1 }
                    if end > start { units.append(start..<end) }
                }
                i += 3
                start = i
                continue
            }
            i += 1
        }
        if let start, start < stream.count { units.append(start..<stream.count) }
        return units
    }

    /// `nalUnits(annexB:)` for an array.
    public static func nalUnits(annexB stream: [UInt8]) -> [Range<Int>] {
        stream.withUnsafeBytes { nalUnits(annexB: $0) }
    }

    /// Whether an Annex B access unit holds an IDR slice.
    public static func isKeyFrame(annexB stream: [UInt8]) -> Bool {
        nalUnits(annexB: stream).contains { stream[$0.lowerBound] & 0x1F == NALType.idr }
    }

    /// The four-byte Annex B start code.
    public static let startCode: [UInt8] = [0, 0, 0, 1]
}
