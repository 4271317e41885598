// Reads AV1 RTP payloads back into a temporal unit (av1-rtp-spec §4.4, §7): each payload's
// aggregation header (Z, Y, W, N) and OBU elements (a LEB128 length before each, but the last when
// W is 1…3); an element continued across payloads (Y, then Z) is joined. Each OBU is written back
// with obu_size (S set), the low-overhead format decoders take. `AV1FrameAssembler`
// (`DepacketizingFrameAssembler`) feeds it a unit's payloads in order.

/// Rebuilds one AV1 temporal unit from its payloads, in order.
public struct AV1Depacketizer: FrameDepacketizer {
    /// The last element read continues in the next payload (Y).
    public private(set) var inFragment = false
    /// A payload of the unit had N: it starts a coded video sequence (a key frame).
    public private(set) var hasKeyFrame = false
    /// The OBU element being read, joined across payloads, without its size.
    private var element: [UInt8] = []
    /// The largest OBU element taken (a continuation chain is bounded as a frame is).
    public static let maxElementSize = 4 << 20

    public init() {}

    public mutating func reset() {
        inFragment = false
        hasKeyFrame = false
        element.removeAll(keepingCapacity: true)
    }

    /// Appends the OBUs of one payload to `output` (an OBU continued in the next payload waits).
    /// - Throws: `RTPPayloadError.emptyPayload`, `.av1MalformedOBU` or `.av1UnexpectedContinuation`.
    public mutating func append(_ payload: UnsafeRawBufferPointer, to output: inout [UInt8]) throws(RTPPayloadError) {
        guard let header = payload.first else { throw .emptyPayload }
        let z = header & 0x80 != 0, y = header & 0x40 != 0, w = Int(header >> 4 & 0x03)
        if header & 0x08 != 0 { hasKeyFrame = true }
        // A continuation must follow a payload that said one comes, and only then.
        guard z == inFragment else { throw .av1UnexpectedContinuation }
        var offset = 1, index = 0
        while offset < payload.count {
            index += 1
            let length: Int
            if w != 0 && index == w {
                length = payload.count - offset
            } else {
                guard let read = AV1OBU.readLEB128(payload, at: &offset), read <= payload.count - offset else { throw .av1MalformedOBU }
                length = read
            }
            guard (index == 1 && z ? element.count : 0) + length <= Self.maxElementSize else { throw .av1MalformedOBU }
            if !(index == 1 && z) { element.removeAll(keepingCapacity: true) }
            element.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[offset ..< offset + length]))
            offset += length
            inFragment = offset >= payload.count && y
            if !inFragment { try writeOBU(to: &output) }
            if w != 0 && index == w { break }
        }
        guard offset == payload.count, index > 0 else { throw .av1MalformedOBU }
    }

    /// Writes the OBU in `element` to `output` with its obu_size.
    private func writeOBU(to output: inout [UInt8]) throws(RTPPayloadError) {
        guard let header = element.first, header & 0x80 == 0 else { throw .av1MalformedOBU }
        let headerLength = header & 0x04 != 0 ? 2 : 1
        guard element.count >= headerLength else { throw .av1MalformedOBU }
        if header & 0x02 != 0 {
            // Sent with its obu_size (allowed, §4.3): kept as it is when it agrees with the element.
            var offset = headerLength
            let declared = element.withUnsafeBytes { AV1OBU.readLEB128($0, at: &offset) }
            guard let declared, declared == element.count - offset else { throw .av1MalformedOBU }
            output.append(contentsOf: element)
            return
        }
        output.append(header | 0x02)
        if headerLength == 2 { output.append(element[1]) }
        AV1OBU.appendLEB128(element.count - headerLength, to: &output)
        output.append(contentsOf: element[headerLength...])
    }
}
