/// Transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2):
/// a 16-bit counter shared by every stream on a transport, echoed back in transport-cc feedback.
public struct TransportSequenceNumberExtension: Hashable, Sendable {
    /// The sequence number.
    public var sequenceNumber: UInt16

    /// Value size in bytes.
    public static let size = 2

    public init(sequenceNumber: UInt16) { self.sequenceNumber = sequenceNumber }

    /// Reads an element's 2-byte value.
    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        guard value.count == Self.size else { throw .invalidExtensionValue }
        self.sequenceNumber = value.u16(0)
    }

    /// Reads an element's 2-byte value.
    public init(parsing value: [UInt8]) throws(RTPError) {
        self = try withRawBytes(value) { (raw) throws(RTPError) in
            try TransportSequenceNumberExtension(parsing: raw)
        }
    }

    /// The value's bytes.
    public func serialize() -> [UInt8] {
        [UInt8(truncatingIfNeeded: sequenceNumber >> 8), UInt8(truncatingIfNeeded: sequenceNumber)]
    }
}
