/// A growable byte queue: bytes are appended at the end and consumed from the front.
///
/// Parsers read the unconsumed bytes in place and consume what they used, so a request split
/// over many reads is never copied more than once. Storage is compacted lazily, when the consumed
/// prefix is at least half of it, which keeps both appends and consumes amortised O(1).
public struct ByteBuffer: Sendable {
    // MARK: - Storage

    @usableFromInline var storage: [UInt8]
    /// Index of the first unconsumed byte in `storage`.
    @usableFromInline var readerIndex: Int = 0

    /// An empty buffer.
    public init() {
        storage = []
    }

    /// A buffer holding `bytes`, all readable.
    public init<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        storage = Array(bytes)
    }

    // MARK: - Reading

    /// Number of bytes not yet consumed.
    @inlinable public var readableBytes: Int { storage.count - readerIndex }

    @inlinable public var isEmpty: Bool { readerIndex == storage.count }

    /// The unconsumed bytes as an array (copies).
    public var readableArray: [UInt8] { Array(storage[readerIndex...]) }

    /// The byte at `offset` from the first unconsumed byte, or `nil` past the end.
    @inlinable public func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < readableBytes else { return nil }
        return storage[readerIndex + offset]
    }

    /// Calls `body` with the unconsumed bytes, without copying.
    @inlinable public func withReadableBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let start = readerIndex
        let result: Result<R, E> = storage.withUnsafeBytes { all in
            do throws(E) {
                return .success(try body(UnsafeRawBufferPointer(rebasing: all[start...])))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Copies `count` bytes starting `offset` bytes after the reader index.
    public func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= readableBytes, count <= readableBytes - offset else { return nil }
        let start = readerIndex + offset
        return Array(storage[start..<(start + count)])
    }

    /// Removes and returns the first `count` bytes; `nil` when fewer are readable.
    public mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard let out = bytes(at: 0, count: count) else { return nil }
        moveReaderIndex(by: count)
        return out
    }

    /// Marks `count` bytes as consumed (clamped to what is readable).
    public mutating func moveReaderIndex(by count: Int) {
        readerIndex += min(max(count, 0), readableBytes)
        if readerIndex == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 1 << 20)
            readerIndex = 0
        } else if readerIndex >= 4096, readerIndex * 2 >= storage.count {
            storage.removeSubrange(0..<readerIndex)
            readerIndex = 0
        }
    }

    /// Drops every unconsumed byte.
    public mutating func clear() {
        storage.removeAll(keepingCapacity: storage.capacity <= 1 << 20)
        readerIndex = 0
    }

    // MARK: - Writing

    /// Appends a copy of `bytes`.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes)
    }

    /// Appends `bytes`.
    public mutating func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        storage.append(contentsOf: bytes)
    }

    /// Appends one byte.
    public mutating func append(_ byte: UInt8) {
        storage.append(byte)
    }

    /// Moves the unconsumed bytes of `other` to the end of this buffer.
    public mutating func append(buffer other: inout ByteBuffer) {
        if isEmpty && other.readerIndex == 0 {
            swap(&storage, &other.storage)
            readerIndex = 0
            other.clear()
        } else {
            other.withReadableBytes { append($0) }
            other.clear()
        }
    }
}
