/// What every RTCP packet type offers, pion style: parse one packet, size it, write it.
public protocol RTCPPacketCodable: Hashable, Sendable {
    /// Parses exactly one packet of this type (header included) from `bytes`.
    init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError)
    /// Bytes `serialize(into:)` writes, header included.
    var serializedSize: Int { get }
    /// Writes the packet into `buffer` without allocating.
    /// - Precondition: `buffer.count >= serializedSize`.
    /// - Returns: bytes written.
    func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int
}

extension RTCPPacketCodable {
    /// Parses exactly one packet of this type from `bytes`.
    public init(parsing bytes: [UInt8]) throws(RTCPError) {
        self = try withRawBytes(bytes) { (raw) throws(RTCPError) in try Self(parsing: raw) }
    }

    /// The packet's bytes.
    public func serialize() -> [UInt8] {
        makeBytes(size: serializedSize) { serialize(into: $0) }
    }

    /// Checks the caller's buffer and opens a writer on it.
    func writer(_ buffer: UnsafeMutableRawBufferPointer, size: Int) -> ByteWriter {
        precondition(buffer.count >= size, "buffer smaller than serializedSize")
        return ByteWriter(buffer)
    }
}
