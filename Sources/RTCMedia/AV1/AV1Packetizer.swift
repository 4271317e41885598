// Splits AV1 temporal units into RTP payloads (av1-rtp-spec §4.4, §5): each payload is the
// aggregation header (Z, Y, W = 0, N) and OBU elements, each prefixed by its LEB128 length. The
// temporal delimiter, tile list and padding OBUs are not sent (§5), and each OBU loses its
// obu_size (S cleared: the element length says it). An OBU larger than the room left is split;
// Y on a payload and Z on the next say that its last element continues. N marks the first payload
// of a key frame that starts a coded video sequence (it carries a sequence header).

/// Turns AV1 temporal units into RTP payloads no larger than `maxPayloadSize`.
public struct AV1Packetizer: Sendable {
    /// Largest payload produced, aggregation header included.
    public let maxPayloadSize: Int
    /// The OBU elements of the unit being packetized, and where each ends (reused: no allocation
    /// per frame once grown).
    private var elements: [UInt8] = []
    private var ends: [Int] = []
    private var scratch: [UInt8]

    /// - Precondition: `maxPayloadSize` leaves room for the aggregation header, a length and a byte.
    public init(maxPayloadSize: Int = 1_200) {
        precondition(maxPayloadSize >= 3, "maxPayloadSize too small for an AV1 payload")
        self.maxPayloadSize = maxPayloadSize
        scratch = [UInt8](repeating: 0, count: maxPayloadSize)
    }

    /// Packetizes one temporal unit (low-overhead format, every OBU with obu_size), handing each
    /// payload to `emit` in order from a reused buffer (valid only during the call).
    /// - Throws: `RTPPayloadError.av1MalformedOBU` when the unit does not parse; what `emit` throws.
    public mutating func packetize(_ unit: UnsafeRawBufferPointer, isKeyFrame: Bool,
                                   emit: (UnsafeRawBufferPointer, _ isLast: Bool) throws -> Void) throws {
        elements.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        var sequenceHeader = false
        try AV1OBU.forEach(inTemporalUnit: unit) { header, payload in
            let type = AV1OBU.type(header[0])
            guard type != AV1OBU.temporalDelimiter, type != AV1OBU.tileList, type != AV1OBU.padding else { return }
            if type == AV1OBU.sequenceHeader { sequenceHeader = true }
            elements.append(header[0] & ~0x02)
            if header.count > 1 { elements.append(header[1]) }
            elements.append(contentsOf: payload)
            ends.append(elements.count)
        }
        guard !ends.isEmpty else { return }
        let capacity = maxPayloadSize
        var element = 0, offset = 0, first = true
        try scratch.withUnsafeMutableBytes { out in
            try elements.withUnsafeBytes { source in
                while element < ends.count {
                    let continues = offset > (element == 0 ? 0 : ends[element - 1])
                    var used = 1
                    while element < ends.count {
                        let left = ends[element] - offset
                        let room = capacity - used
                        guard room >= 2 else { break }
                        let chunk = min(left, room - AV1OBU.leb128Size(min(left, room)))
                        guard chunk > 0 else { break }
                        used += AV1OBU.writeLEB128(chunk, into: out, at: used)
                        out.baseAddress!.advanced(by: used).copyMemory(from: source.baseAddress!.advanced(by: offset), byteCount: chunk)
                        used += chunk
                        offset += chunk
                        if offset == ends[element] { element += 1 } else { break }
                    }
                    let splitsElement = element < ends.count && offset > (element == 0 ? 0 : ends[element - 1])
                    // §4.4: Z, Y, W = 0 (every element has its length), N.
                    out[0] = (continues ? 0x80 : 0) | (splitsElement ? 0x40 : 0) | (first && isKeyFrame && sequenceHeader ? 0x08 : 0)
                    first = false
                    try emit(UnsafeRawBufferPointer(rebasing: out[0 ..< used]), element == ends.count)
                }
            }
        }
    }

    /// Packetizes an encoder's output into owned payloads; the last one takes the RTP marker.
    public mutating func packetize(_ frame: EncodedVideoFrame) throws -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        try frame.data.withUnsafeBytes { bytes in
            try packetize(bytes, isKeyFrame: frame.isKeyFrame) { payload, _ in payloads.append(Array(payload)) }
        }
        return payloads
    }
}
