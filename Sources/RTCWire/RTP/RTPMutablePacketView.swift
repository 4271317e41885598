/// In-place rewriting of one RTP packet in a caller's buffer, without allocation or copying.
///
/// The SFU forwards a publisher's packet to each subscriber by copying it once into the
/// send buffer and rewriting SSRC, sequence number, timestamp, payload type and extension values
/// there. Setters are `nonmutating`: they write through to the buffer.
public struct RTPMutablePacketView {
    /// The whole packet.
    public let bytes: UnsafeMutableRawBufferPointer
    /// The validated layout, read through the same memory.
    public let view: RTPPacketView

    /// Validates `bytes` as one RTP packet (same checks as `RTPPacketView`).
    public init(_ bytes: UnsafeMutableRawBufferPointer) throws(RTPError) {
        self.bytes = bytes
        self.view = try RTPPacketView(UnsafeRawBufferPointer(bytes))
    }

    // MARK: - Fixed header fields

    /// The M bit.
    public var marker: Bool {
        get { view.marker }
        nonmutating set { bytes[1] = (bytes[1] & 0x7F) | (newValue ? 0x80 : 0) }
    }

    /// The 7-bit payload type (the high bit of `newValue` is ignored).
    public var payloadType: UInt8 {
        get { view.payloadType }
        nonmutating set { bytes[1] = (bytes[1] & 0x80) | (newValue & 0x7F) }
    }

    /// The 16-bit sequence number.
    public var sequenceNumber: UInt16 {
        get { view.sequenceNumber }
        nonmutating set { bytes.put16(newValue, at: 2) }
    }

    /// The 32-bit media timestamp.
    public var timestamp: UInt32 {
        get { view.timestamp }
        nonmutating set { bytes.put32(newValue, at: 4) }
    }

    /// The synchronization source.
    public var ssrc: UInt32 {
        get { view.ssrc }
        nonmutating set { bytes.put32(newValue, at: 8) }
    }

    /// The payload bytes, padding excluded, writable in place.
    public var payload: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: bytes[view.payloadRange])
    }

    // MARK: - Header extension elements

    /// The value of the element with `id`, writable in place; nil when absent.
    public func mutableExtensionValue(id: UInt8) -> UnsafeMutableRawBufferPointer? {
        guard let range = view.extensionValueRange(id: id) else { return nil }
        return UnsafeMutableRawBufferPointer(rebasing: bytes[range])
    }

    /// Overwrites the value of the element with `id`.
    /// - Returns: false (and writes nothing) when the element is absent or its size differs.
    @discardableResult
    public func setExtensionValue(id: UInt8, to value: UnsafeRawBufferPointer) -> Bool {
        guard let target = mutableExtensionValue(id: id), target.count == value.count else { return false }
        target.copyMemory(from: value)
        return true
    }

    /// Writes a transport-wide sequence number into the element with `id` (2-byte value).
    @discardableResult
    public func setTransportSequenceNumber(_ value: UInt16, id: UInt8) -> Bool {
        guard let target = mutableExtensionValue(id: id), target.count == 2 else { return false }
        target.put16(value, at: 0)
        return true
    }

    /// Writes a 24-bit abs-send-time into the element with `id` (3-byte value).
    @discardableResult
    public func setAbsSendTime(_ value: AbsSendTimeExtension, id: UInt8) -> Bool {
        guard let target = mutableExtensionValue(id: id), target.count == 3 else { return false }
        target.put24(value.rawValue, at: 0)
        return true
    }

    /// Renumbers the element `from` to `to`, for a subscriber that negotiated another id.
    /// - Returns: false when absent, or when `to` does not fit the form (1–14 one-byte, 1–255 two-byte).
    @discardableResult
    public func rewriteExtensionID(from: UInt8, to: UInt8) -> Bool {
        guard to != 0, let profile = view.extensionProfile else { return false }
        for element in view.extensionElements where element.id == from {
            if profile.isTwoByte {
                bytes[element.headerOffset] = to
            } else {
                guard to <= 14 else { return false }
                bytes[element.headerOffset] = (to << 4) | (bytes[element.headerOffset] & 0x0F)
            }
            return true
        }
        return false
    }

    /// Blanks the element with `id` into padding bytes (RFC 8285 §4.1 allows zero padding
    /// anywhere in the block), so it is dropped without moving any other byte.
    /// The view's layout stays valid; later lookups of `id` return nil.
    @discardableResult
    public func removeExtension(id: UInt8) -> Bool {
        guard let element = view.extensionElements.first(where: { $0.id == id }) else { return false }
        let span = element.headerOffset ..< element.valueRange.upperBound
        UnsafeMutableRawBufferPointer(rebasing: bytes[span]).initializeMemory(as: UInt8.self, repeating: 0)
        return true
    }
}
