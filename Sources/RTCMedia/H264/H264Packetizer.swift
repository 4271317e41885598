// Splits H.264 access units (Annex B) into RTP payloads in packetization-mode 1 (RFC 6184 §6.3,
// non-interleaved): a NAL unit that fits goes alone (§5.6); a larger one is cut into FU-A
// fragments (§5.8); SPS and PPS that precede a slice travel together in one STAP-A (§5.7.1), so
// a key frame's parameter sets arrive with its first packet. The RTP marker goes on the last
// payload of the access unit (§5.1).

/// Turns H.264 access units into RTP payloads no larger than `maxPayloadSize`.
public struct H264Packetizer: Sendable {
    /// Largest payload produced.
    public let maxPayloadSize: Int
    private var scratch: [UInt8]

    /// - Parameter maxPayloadSize: 1 200 by default, as for VP8.
    /// - Precondition: room for an FU-A's two header bytes and one byte of data.
    public init(maxPayloadSize: Int = 1_200) {
        precondition(maxPayloadSize > 2, "maxPayloadSize too small for an FU-A")
        self.maxPayloadSize = maxPayloadSize
        scratch = [UInt8](repeating: 0, count: maxPayloadSize)
    }

    /// Packetizes one access unit (Annex B), handing each payload to `emit` in order from a
    /// reused buffer; `isLast` marks the payload that takes the RTP marker.
    public mutating func packetize(_ accessUnit: UnsafeRawBufferPointer,
                                   emit: (UnsafeRawBufferPointer, _ isLast: Bool) throws -> Void) rethrows {
        let units = H264.nalUnits(annexB: accessUnit)
        let limit = maxPayloadSize
        try scratch.withUnsafeMutableBytes { buffer in
            var index = 0
            while index < units.count {
                // Parameter sets (and SEI) before a slice: aggregate as many as fit into one STAP-A.
                var aggregate = index
                var size = 1
                while aggregate < units.count, Self.isAggregatable(accessUnit[units[aggregate].lowerBound]),
                      size + 2 + units[aggregate].count <= limit {
                    size += 2 + units[aggregate].count
                    aggregate += 1
                }
                if aggregate - index >= 2 {
                    var offset = 1
                    var nri: UInt8 = 0
                    for unit in units[index..<aggregate] {
                        buffer[offset] = UInt8(truncatingIfNeeded: unit.count >> 8)
                        buffer[offset + 1] = UInt8(truncatingIfNeeded: unit.count)
                        UnsafeMutableRawBufferPointer(rebasing: buffer[(offset + 2)..<(offset + 2 + unit.count)])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: accessUnit[unit]))
                        nri = max(nri, accessUnit[unit.lowerBound] & 0x60)
                        offset += 2 + unit.count
                    }
                    buffer[0] = nri | H264.NALType.stapA
                    try emit(UnsafeRawBufferPointer(rebasing: buffer[0..<offset]), aggregate == units.count)
                    index = aggregate
                    continue
                }
                let unit = units[index]
                let isLastUnit = index == units.count - 1
                if unit.count <= limit {
                    try emit(UnsafeRawBufferPointer(rebasing: accessUnit[unit]), isLastUnit)
                } else {
                    // FU-A: indicator (F, NRI, 28), header (S, E, type), then the NAL unit's bytes
                    // after its own header, in near-equal slices.
                    let header = accessUnit[unit.lowerBound]
                    let body = (unit.lowerBound + 1)..<unit.upperBound
                    let capacity = limit - 2
                    let count = (body.count + capacity - 1) / capacity
                    let base = body.count / count, extra = body.count % count
                    var offset = body.lowerBound
                    for part in 0..<count {
                        let length = base + (part < extra ? 1 : 0)
                        buffer[0] = header & 0xE0 | H264.NALType.fuA
                        buffer[1] = (part == 0 ? 0x80 : 0) | (part == count - 1 ? 0x40 : 0) | header & 0x1F
                        UnsafeMutableRawBufferPointer(rebasing: buffer[2..<(2 + length)])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: accessUnit[offset..<(offset + length)]))
                        offset += length
                        try emit(UnsafeRawBufferPointer(rebasing: buffer[0..<(2 + length)]), isLastUnit && part == count - 1)
                    }
                }
                index += 1
            }
        }
    }

    /// Packetizes one access unit into owned payloads; the last one takes the RTP marker.
    public mutating func packetize(_ accessUnit: [UInt8]) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        accessUnit.withUnsafeBytes { bytes in packetize(bytes) { payload, _ in payloads.append(Array(payload)) } }
        return payloads
    }

    private static func isAggregatable(_ header: UInt8) -> Bool {
        let type = header & 0x1F
        return type == H264.NALType.sps || type == H264.NALType.pps || type == H264.NALType.sei
    }
}
