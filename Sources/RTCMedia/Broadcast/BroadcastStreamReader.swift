/// Cuts the broadcast stream (`BroadcastMessage`) into messages as bytes arrive, in any pieces.
/// After an error the stream is unusable (the sender is not one of ours): the caller closes it.
public struct BroadcastStreamReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, or nil until more bytes arrive.
    /// - Throws: `BroadcastMessage.ParseError` for a bad length or message.
    public mutating func next() throws(BroadcastMessage.ParseError) -> BroadcastMessage? {
        guard buffer.count - start >= 4 else { return compact() }
        var length = 0
        for i in 0..<4 { length = length << 8 | Int(buffer[start + i]) }
        guard (1...BroadcastMessage.maxLength).contains(length) else { throw .badLength(length) }
        guard buffer.count - start - 4 >= length else { return compact() }
        let body = buffer[(start + 4)..<(start + 4 + length)]
        start += 4 + length
        return try BroadcastMessage(body: body)
    }

    /// Bytes received and not yet returned as messages.
    public var pendingBytes: Int { buffer.count - start }

    /// Moves a partial message to the front once the consumed part dominates, so the buffer
    /// does not grow with the stream.
    private mutating func compact() -> BroadcastMessage? {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        return nil
    }
}
