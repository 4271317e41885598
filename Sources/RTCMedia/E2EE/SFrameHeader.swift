/// The SFrame header (RFC 9605 §4.3): a config byte, then the key id (KID) and the counter (CTR)
/// as compact big-endian integers.
///
///     0 1 2 3 4 5 6 7
///    +-+-----+-+-----+---------------+---------------+
///    |X|  K  |Y|  C  | KID (if X=1)  | CTR (if Y=1)  |
///    +-+-----+-+-----+---------------+---------------+
///
/// A value 0–7 sits in K (or C) with its flag clear; a larger one follows the config byte in the
/// fewest bytes that hold it, and K (or C) is that length minus one. Parsing accepts only that
/// shortest form, so each header has one spelling and a parsed header writes back to its input.
public struct SFrameHeader: Equatable, Sendable {
    public var keyID: UInt64
    public var counter: UInt64

    /// The longest header: a config byte and two 8-byte values.
    public static let maxLength = 17

    public init(keyID: UInt64, counter: UInt64) {
        self.keyID = keyID
        self.counter = counter
    }

    /// The header's size on the wire.
    public var encodedLength: Int { 1 + Self.extraLength(keyID) + Self.extraLength(counter) }

    /// Reads the header at the start of `bytes`; returns it and its length.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(SFrameError) -> (header: SFrameHeader, length: Int) {
        guard let config = bytes.first else { throw .truncated }
        var offset = 1
        func value(extended: Bool, field: UInt8) throws(SFrameError) -> UInt64 {
            guard extended else { return UInt64(field) }
            let length = Int(field) + 1
            guard bytes.count >= offset + length else { throw .truncated }
            var result: UInt64 = 0
            for index in offset ..< offset + length { result = result << 8 | UInt64(bytes[index]) }
            // The shortest form only: no leading zero byte, and nothing below 8 in extra bytes.
            guard result >= 8, extraLength(result) == length else { throw .nonMinimalHeader }
            offset += length
            return result
        }
        let keyID = try value(extended: config & 0x80 != 0, field: (config >> 4) & 0x07)
        let counter = try value(extended: config & 0x08 != 0, field: config & 0x07)
        return (SFrameHeader(keyID: keyID, counter: counter), offset)
    }

    /// Writes the header at the start of `out` (at least `encodedLength` bytes); returns its length.
    @discardableResult
    public func write(into out: UnsafeMutableRawBufferPointer) -> Int {
        let keyLength = Self.extraLength(keyID), counterLength = Self.extraLength(counter)
        precondition(out.count >= 1 + keyLength + counterLength)
        let k: UInt8 = keyLength == 0 ? UInt8(keyID) : 0x08 | UInt8(keyLength - 1)
        let c: UInt8 = counterLength == 0 ? UInt8(counter) : 0x08 | UInt8(counterLength - 1)
        out[0] = k << 4 | c
        var offset = 1
        for (value, length) in [(keyID, keyLength), (counter, counterLength)] {
            for index in 0 ..< length { out[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (length - 1 - index))) }
            offset += length
        }
        return offset
    }

    /// The header as bytes.
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: encodedLength) { buffer, count in
            count = write(into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Bytes after the config byte a value takes: none for 0–7, else its shortest big-endian form.
    static func extraLength(_ value: UInt64) -> Int {
        value < 8 ? 0 : (64 - value.leadingZeroBitCount + 7) / 8
    }
}
