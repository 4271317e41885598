/// Why a RED payload could not be read (RFC 2198 §3).
public enum REDError: Error, Sendable, Equatable {
    /// The block headers run past the end of the payload (no final header with F = 0).
    case headerOverrun
    /// The redundant blocks' lengths add up to more than the bytes after the headers.
    case blockOverrun
}

/// One block of a RED payload: its payload type, how much older than the packet its data is
/// (0 for the primary block) and where its data is in the payload.
public struct REDBlock: Sendable, Equatable {
    public var payloadType: UInt8
    /// Timestamp units before the RTP packet's timestamp (14 bits; 0 for the primary).
    public var timestampOffset: UInt16
    /// Offsets of the block's data within the RED payload.
    public var range: Range<Int>

    public init(payloadType: UInt8, timestampOffset: UInt16, range: Range<Int>) {
        self.payloadType = payloadType
        self.timestampOffset = timestampOffset
        self.range = range
    }
}

/// An RTP payload for redundant audio data, `audio/red` (RFC 2198), read in place: block headers,
/// then the blocks' data in the same order, the primary (newest) block last.
///
/// ```
/// redundant block header (RFC 2198 §3), 4 bytes:
///  |F|  block PT   |   timestamp offset (14)   |  block length (10) |
/// final (primary) block header, 1 byte:
///  |0|  block PT   |
/// ```
/// Reading allocates nothing: `redundantCount` and `redundant(_:)` walk the headers again.
public struct REDPayloadView {
    public let bytes: UnsafeRawBufferPointer
    /// Redundant blocks before the primary.
    public let redundantCount: Int
    /// The primary block (the packet's own timestamp).
    public let primary: REDBlock
    private let headersLength: Int

    /// Validates the headers and the block lengths.
    public init(_ bytes: UnsafeRawBufferPointer) throws(REDError) {
        var offset = 0
        var count = 0
        var dataLength = 0
        while true {
            guard offset < bytes.count else { throw .headerOverrun }
            if bytes[offset] & 0x80 == 0 { break }
            guard offset + 4 <= bytes.count else { throw .headerOverrun }
            dataLength += Int(bytes[offset + 2] & 0x03) << 8 | Int(bytes[offset + 3])
            count += 1
            offset += 4
        }
        let headersLength = offset + 1
        guard headersLength + dataLength <= bytes.count else { throw .blockOverrun }
        self.bytes = bytes
        redundantCount = count
        self.headersLength = headersLength
        primary = REDBlock(payloadType: bytes[offset] & 0x7F, timestampOffset: 0,
                           range: (headersLength + dataLength) ..< bytes.count)
    }

    /// Redundant block `index` (0: the oldest, first in the payload).
    public func redundant(_ index: Int) -> REDBlock {
        precondition(index >= 0 && index < redundantCount, "no redundant block \(index)")
        var start = headersLength
        for i in 0 ... index {
            let header = i * 4
            let payloadType = bytes[header] & 0x7F
            let offset = UInt16(bytes[header + 1]) << 6 | UInt16(bytes[header + 2] >> 2)
            let length = Int(bytes[header + 2] & 0x03) << 8 | Int(bytes[header + 3])
            if i == index { return REDBlock(payloadType: payloadType, timestampOffset: offset, range: start ..< start + length) }
            start += length
        }
        fatalError("unreachable")
    }

    /// The data of `block`.
    public func data(_ block: REDBlock) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[block.range])
    }
}

public enum REDPayloadWriter {
    /// The largest timestamp offset and block length a redundant block header holds (14 and 10 bits).
    public static let maxTimestampOffset: UInt32 = 0x3FFF
    public static let maxBlockLength = 0x3FF

    /// Sets the payload type of every block header of a RED payload, in place (a forwarder
    /// whose receiver numbers the codec differently, RFC 2198 §3). Stops at a header that runs
    /// past the end, so bytes that do not parse are left as they are past that point.
    public static func setBlockPayloadTypes(_ payload: UnsafeMutableRawBufferPointer, to payloadType: UInt8) {
        var offset = 0
        while offset < payload.count {
            let isRedundant = payload[offset] & 0x80 != 0
            payload[offset] = (payload[offset] & 0x80) | (payloadType & 0x7F)
            guard isRedundant else { return }
            offset += 4
        }
    }

    /// Writes a RED payload of `primary` (payload type `payloadType`) with at most one redundant
    /// block, `redundant`, `timestampOffset` units older, of the same payload type (RFC 2198 §3).
    /// A redundant block that does not fit a header (offset or length too large) is left out.
    /// - Returns: the bytes written, or nil when they do not fit `out`.
    public static func write(primary: UnsafeRawBufferPointer, payloadType: UInt8, redundant: UnsafeRawBufferPointer?,
                             timestampOffset: UInt32, into out: UnsafeMutableRawBufferPointer) -> Int? {
        var offset = 0
        let carried = redundant.flatMap { block -> UnsafeRawBufferPointer? in
            block.count <= maxBlockLength && timestampOffset <= maxTimestampOffset ? block : nil
        }
        let total = (carried.map { 4 + $0.count } ?? 0) + 1 + primary.count
        guard total <= out.count else { return nil }
        if let block = carried {
            out[0] = 0x80 | (payloadType & 0x7F)
            out[1] = UInt8(truncatingIfNeeded: timestampOffset >> 6)
            out[2] = UInt8(truncatingIfNeeded: timestampOffset << 2) | UInt8(block.count >> 8)
            out[3] = UInt8(truncatingIfNeeded: block.count)
            offset = 4
        }
        out[offset] = payloadType & 0x7F
        offset += 1
        if let block = carried, !block.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: out[offset ..< offset + block.count]).copyMemory(from: block)
            offset += block.count
        }
        if !primary.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: out[offset ..< offset + primary.count]).copyMemory(from: primary)
            offset += primary.count
        }
        return offset
    }
}
