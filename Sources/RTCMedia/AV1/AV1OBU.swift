// AV1 open bitstream units (AV1 §5.3) as the RTP payload format moves them (av1-rtp-spec §4.3,
// §5): the one-byte OBU header, its optional extension byte, and the LEB128 sizes (AV1 §4.10.5)
// that prefix OBU elements in a payload and OBUs in a temporal unit.
//
//      0 1 2 3 4 5 6 7
//     +-+-+-+-+-+-+-+-+
//     |F| type  |X|S|-|   F forbidden, X extension byte follows, S obu_size follows
//     +-+-+-+-+-+-+-+-+

/// Reading and writing OBUs and LEB128 sizes without allocating.
public enum AV1OBU {
    /// OBU types (AV1 §6.2.2) the payload format treats apart.
    public static let sequenceHeader: UInt8 = 1
    public static let temporalDelimiter: UInt8 = 2
    public static let tileList: UInt8 = 8
    public static let padding: UInt8 = 15

    /// The OBU type of a header byte.
    @inline(__always)
    public static func type(_ header: UInt8) -> UInt8 { header >> 3 & 0x0F }

    /// Reads a LEB128 value at `offset` (at most 8 bytes, AV1 §4.10.5); nil when it runs past the
    /// end or does not fit 32 bits.
    public static func readLEB128(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Int? {
        var value: UInt64 = 0
        for index in 0 ..< 8 {
            guard offset < bytes.count else { return nil }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return value <= UInt64(UInt32.max) ? Int(value) : nil }
        }
        return nil
    }

    /// How many bytes `value` takes in LEB128.
    public static func leb128Size(_ value: Int) -> Int {
        var size = 1, rest = value >> 7
        while rest > 0 { size += 1; rest >>= 7 }
        return size
    }

    /// Appends `value` in LEB128 (the shortest form).
    public static func appendLEB128(_ value: Int, to out: inout [UInt8]) {
        var rest = value
        repeat {
            let byte = UInt8(rest & 0x7F)
            rest >>= 7
            out.append(rest > 0 ? byte | 0x80 : byte)
        } while rest > 0
    }

    /// The first sequence header OBU (AV1 §5.5) of a temporal unit in the low-overhead format, as
    /// it is there (header, obu_size, payload): what a container's codec configuration carries
    /// (av1-isobmff §2.3, configOBUs). Nil when no non-empty one comes before the end or a
    /// malformed OBU.
    public static func sequenceHeader(inTemporalUnit unit: UnsafeRawBufferPointer) -> Range<Int>? {
        var offset = 0
        while offset < unit.count {
            let start = offset
            guard let obu = try? readOBU(unit, at: &offset) else { return nil }
            if type(unit[start]) == sequenceHeader, !obu.payload.isEmpty { return start ..< offset }
        }
        return nil
    }

    /// Writes `value` in LEB128 (the shortest form) at `offset`; the bytes written.
    public static func writeLEB128(_ value: Int, into out: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var rest = value, index = offset
        repeat {
            let byte = UInt8(rest & 0x7F)
            rest >>= 7
            out[index] = rest > 0 ? byte | 0x80 : byte
            index += 1
        } while rest > 0
        return index - offset
    }

    /// Calls `body` with each OBU of a temporal unit in the low-overhead format (every OBU with
    /// obu_size, as libaom writes it): its header bytes (one or two) and its payload.
    /// - Throws: `RTPPayloadError.av1MalformedOBU` for an OBU without a size or that runs past the end.
    public static func forEach(inTemporalUnit unit: UnsafeRawBufferPointer,
                               _ body: (_ header: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) throws -> Void) throws {
        var offset = 0
        while offset < unit.count {
            let obu = try readOBU(unit, at: &offset)
            try body(UnsafeRawBufferPointer(rebasing: unit[obu.header]), UnsafeRawBufferPointer(rebasing: unit[obu.payload]))
        }
    }

    /// Reads the OBU at `offset` (its header, with obu_size) and moves `offset` past it.
    /// - Throws: `RTPPayloadError.av1MalformedOBU` for an OBU without a size or that runs past the end.
    private static func readOBU(_ unit: UnsafeRawBufferPointer, at offset: inout Int) throws(RTPPayloadError) -> (header: Range<Int>, payload: Range<Int>) {
        let start = offset
        let header = unit[offset]
        let headerLength = header & 0x04 != 0 ? 2 : 1
        offset += headerLength
        guard header & 0x80 == 0, header & 0x02 != 0, offset <= unit.count,
              let size = readLEB128(unit, at: &offset), size <= unit.count - offset else { throw .av1MalformedOBU }
        defer { offset += size }
        return (start ..< start + headerLength, offset ..< offset + size)
    }
}
