/// One RFC 8285 element found in a packet: its id and where its value lies in the packet.
public struct RTPExtensionElementView: Hashable, Sendable {
    /// Local identifier (1–14 one-byte form, 1–255 two-byte form).
    public let id: UInt8
    /// Offsets of the value within the packet.
    public let valueRange: Range<Int>
    /// Offset of the element's own header byte(s) within the packet.
    public let headerOffset: Int
}

/// The RFC 8285 elements of a packet's extension block, walked without allocation.
public struct RTPExtensionElements: Sequence {
    let bytes: UnsafeRawBufferPointer
    let range: Range<Int>
    let profile: RTPExtensionProfile?

    public struct Iterator: IteratorProtocol {
        var cursor: Cursor
        let active: Bool

        public mutating func next() -> RTPExtensionElementView? {
            guard active, case .element(let element) = cursor.advance() else { return nil }
            return element
        }
    }

    public func makeIterator() -> Iterator {
        let hasElements = profile?.hasElements ?? false
        return Iterator(
            cursor: Cursor(bytes: bytes, range: range, twoByte: profile?.isTwoByte ?? false),
            active: hasElements)
    }

    /// Walks the block one element at a time. Shared by validation and iteration so both read
    /// the wire format the same way.
    struct Cursor {
        enum Step { case element(RTPExtensionElementView), end, overrun }

        let bytes: UnsafeRawBufferPointer
        let end: Int
        let twoByte: Bool
        var offset: Int

        init(bytes: UnsafeRawBufferPointer, range: Range<Int>, twoByte: Bool) {
            self.bytes = bytes
            self.end = range.upperBound
            self.twoByte = twoByte
            self.offset = range.lowerBound
        }

        mutating func advance() -> Step {
            while offset < end {
                let head = bytes.u8(offset)
                // RFC 8285 §4.1: zero bytes are padding, allowed between and after elements.
                if head == 0 { offset += 1; continue }
                if twoByte {
                    guard offset + 2 <= end else { return .overrun }
                    let length = Int(bytes.u8(offset + 1))
                    let valueStart = offset + 2
                    guard valueStart + length <= end else { return .overrun }
                    let element = RTPExtensionElementView(
                        id: head, valueRange: valueStart ..< valueStart + length, headerOffset: offset)
                    offset = valueStart + length
                    return .element(element)
                }
                let id = head >> 4
                // RFC 8285 §4.2: ID 15 stops processing; ID 0 with a length is treated as padding.
                if id == 15 { offset = end; return .end }
                if id == 0 { offset += 1; continue }
                let length = Int(head & 0x0F) + 1
                let valueStart = offset + 1
                guard valueStart + length <= end else { return .overrun }
                let element = RTPExtensionElementView(
                    id: id, valueRange: valueStart ..< valueStart + length, headerOffset: offset)
                offset = valueStart + length
                return .element(element)
            }
            return .end
        }
    }
}
