// Big-endian loads and stores on raw buffers. Network byte order everywhere (RFC 3550 §4).
// These helpers do not check bounds in release builds: every caller checks lengths first,
// which keeps the per-packet path branch-light and free of allocation.

extension UnsafeRawBufferPointer {
    @inline(__always) func u8(_ offset: Int) -> UInt8 { self[offset] }

    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset &+ 1])
    }

    @inline(__always) func u24(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset &+ 1]) << 8 | UInt32(self[offset &+ 2])
    }

    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) func u64(_ offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Copies `range` out as an array (owned types only; never on the view path).
    func copyBytes(_ range: Range<Int>) -> [UInt8] {
        guard !range.isEmpty else { return [] }
        let source = UnsafeRawBufferPointer(rebasing: self[range])
        return [UInt8](unsafeUninitializedCapacity: source.count) { buffer, count in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
            count = source.count
        }
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always) func put8(_ value: UInt8, at offset: Int) { self[offset] = value }

    @inline(__always) func put16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset &+ 1] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always) func put24(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset &+ 1] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset &+ 2] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always) func put32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inline(__always) func put64(_ value: UInt64, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
    }
}

/// A cursor that appends big-endian fields to a caller's buffer. The caller sizes the buffer
/// from `serializedSize` first, so writes stay in bounds.
struct ByteWriter {
    let buffer: UnsafeMutableRawBufferPointer
    private(set) var offset: Int

    init(_ buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    mutating func u8(_ value: UInt8) { buffer.put8(value, at: offset); offset += 1 }
    mutating func u16(_ value: UInt16) { buffer.put16(value, at: offset); offset += 2 }
    mutating func u24(_ value: UInt32) { buffer.put24(value, at: offset); offset += 3 }
    mutating func u32(_ value: UInt32) { buffer.put32(value, at: offset); offset += 4 }
    mutating func u64(_ value: UInt64) { buffer.put64(value, at: offset); offset += 8 }

    mutating func bytes(_ value: [UInt8]) {
        guard !value.isEmpty else { return }
        value.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + source.count]).copyMemory(from: source)
        }
        offset += value.count
    }

    mutating func bytes(_ source: UnsafeRawBufferPointer) {
        guard !source.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + source.count]).copyMemory(from: source)
        offset += source.count
    }

    mutating func zeros(_ count: Int) {
        guard count > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + count]).initializeMemory(as: UInt8.self, repeating: 0)
        offset += count
    }
}

/// Runs `body` over an array's bytes, keeping the body's typed error (the standard library's
/// `withUnsafeBytes` only rethrows `any Error`).
@inline(__always)
func withRawBytes<R, Failure: Error>(
    _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(Failure) -> R
) throws(Failure) -> R {
    let result: Result<R, Failure> = bytes.withUnsafeBytes { raw in
        Result { () throws(Failure) -> R in try body(raw) }
    }
    return try result.get()
}

/// Makes an array of exactly `size` bytes filled by `write`, which returns the count written.
@inline(__always)
func makeBytes(size: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
        let raw = UnsafeMutableRawBufferPointer(buffer)
        raw.initializeMemory(as: UInt8.self, repeating: 0)
        count = write(raw)
    }
}
