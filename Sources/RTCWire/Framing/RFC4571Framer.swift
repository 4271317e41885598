/// RFC 4571 §2 framing of datagrams on a stream (ICE-TCP, RFC 6544 §3): each packet is preceded
/// by its length as a 16-bit big-endian integer. The deframer takes the stream in whatever pieces
/// TCP delivers and hands out whole packets; its buffer is bounded, so a peer cannot make it grow.
public struct RFC4571Deframer: Sendable {
    /// Why the stream is unusable (the connection should be closed).
    public enum Failure: Error, Sendable, Equatable {
        /// A zero length: RFC 4571 frames carry a whole RTP/RTCP/STUN/DTLS packet, never nothing.
        case emptyFrame
    }

    /// Bytes of an incomplete frame carried over between reads (at most 2 + 65535).
    private var pending: [UInt8] = []

    public init() {}

    /// Bytes waiting for the rest of their frame.
    public var bufferedCount: Int { pending.count }

    /// Adds bytes read from the stream; calls `emit` with each complete packet in order (valid
    /// only during the call). Throws when the stream breaks the framing; nothing more should be fed.
    public mutating func push(_ bytes: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        var input = bytes[...]
        // Finish a frame begun in an earlier read.
        if !pending.isEmpty {
            if pending.count < 2 {
                let take = min(2 - pending.count, input.count)
                pending.append(contentsOf: input.prefix(take))
                input = input.dropFirst(take)
                if pending.count < 2 { return }
            }
            let length = Int(pending[0]) << 8 | Int(pending[1])
            guard length > 0 else { throw Failure.emptyFrame }
            let take = min(2 + length - pending.count, input.count)
            pending.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
            guard pending.count == 2 + length else { return }
            try pending.withUnsafeBytes { try emit(UnsafeRawBufferPointer(rebasing: $0[2...])) }
            pending.removeAll(keepingCapacity: true)
        }
        // Whole frames straight from the read buffer, without copying.
        while input.count >= 2 {
            let start = input.startIndex
            let length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
            guard length > 0 else { throw Failure.emptyFrame }
            guard input.count >= 2 + length else { break }
            try emit(UnsafeRawBufferPointer(rebasing: bytes[(start + 2)..<(start + 2 + length)]))
            input = input.dropFirst(2 + length)
        }
        pending.append(contentsOf: input)
    }

    /// `push` for an array, collecting the packets.
    public mutating func push(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        try bytes.withUnsafeBytes { raw in try push(raw) { packets.append(Array($0)) } }
        return packets
    }
}

/// The sending side of RFC 4571 framing.
public enum RFC4571Framer {
    /// Largest packet a frame can carry.
    public static let maxPacketSize = 65_535

    /// Writes the two-byte length and `packet` into `out`; returns the bytes written, or `nil`
    /// when the packet is empty, too large for a frame, or `out` is too small.
    public static func frame(_ packet: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Int? {
        guard !packet.isEmpty, packet.count <= maxPacketSize, out.count >= packet.count + 2 else { return nil }
        out[0] = UInt8(packet.count >> 8)
        out[1] = UInt8(packet.count & 0xFF)
        UnsafeMutableRawBufferPointer(rebasing: out[2..<(2 + packet.count)]).copyMemory(from: packet)
        return packet.count + 2
    }

    /// The framed bytes of `packet` (`nil` when it cannot be framed).
    public static func frame(_ packet: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: packet.count + 2)
        let written = packet.withUnsafeBytes { raw in out.withUnsafeMutableBytes { frame(raw, into: $0) } }
        return written == nil ? nil : out
    }
}
