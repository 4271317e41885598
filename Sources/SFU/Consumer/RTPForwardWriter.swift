import RTCWire

/// The header extension values one forwarded packet carries to its subscriber, with the
/// subscriber's negotiated ids (0 = not negotiated, not written).
struct OutgoingExtensions {
    var ids: HeaderExtensionIDs
    /// The subscriber's m-section mid (RFC 8843 §15), empty when none: the consumer's own bytes
    /// (`Consumer.mid`), lent for the write, so building this per packet retains nothing.
    var mid: UnsafeRawBufferPointer
    /// The publisher's RFC 6464 byte, when the source packet had one.
    var audioLevel: UInt8?
    /// 24-bit abs-send-time of this send.
    var absSendTime: UInt32
    /// The subscriber transport's transport-wide sequence number for this packet.
    var transportSequence: UInt16
    /// The publisher's abs-capture-time value (8 or 16 bytes), forwarded unchanged; it points
    /// into the source packet, so it is valid only while that packet is.
    var absCaptureTime: UnsafeRawBufferPointer?
    /// The publisher's AV1 Dependency Descriptor value (it points into the source packet), and
    /// when the subscriber gets only some of its decode targets, the rewrite that says which
    /// (av1-rtp-spec §A.4).
    var dependencyDescriptor: UnsafeRawBufferPointer?
    var descriptorRewrite: DescriptorRewrite?
    /// The consumer's block written once (`FixedExtensionBlock`): used instead of writing the
    /// block element by element when the packet carries nothing else (`usesFixedBlock`).
    var fixed: FixedExtensionBlock?

    /// The packet's block is `fixed` with this send's abs-send-time and transport-wide number:
    /// none of the values that vary from packet to packet in which elements it has is present.
    @inline(__always)
    var usesFixedBlock: Bool {
        fixed != nil && audioLevel == nil && absCaptureTime == nil && dependencyDescriptor == nil
    }

    /// The Dependency Descriptor rewritten with one subscriber's active decode targets.
    struct DescriptorRewrite {
        var layout: DependencyDescriptor.Layout
        var activeDecodeTargets: UInt32
    }

    /// Bytes of the Dependency Descriptor element's value (0: none is written). RFC 8285's
    /// two-byte form holds at most 255.
    @inline(__always)
    var dependencyDescriptorSize: Int {
        guard ids.dependencyDescriptor != 0, let value = dependencyDescriptor else { return 0 }
        let size = descriptorRewrite?.layout.rewrittenLength() ?? value.count
        return size <= 255 ? size : 0
    }

    /// Bytes of the RFC 8285 block (header and padding included), and whether it is two-byte.
    func blockSize() -> (size: Int, twoByte: Bool) {
        if usesFixedBlock, let fixed { return (fixed.bytes.count, fixed.twoByte) }
        let descriptorSize = dependencyDescriptorSize
        let twoByte = !ids.fitOneByteForm || mid.count > 16 || descriptorSize > 16
        let perElement = twoByte ? 2 : 1
        var size = 0
        if ids.mid != 0, !mid.isEmpty { size += perElement + mid.count }
        if ids.audioLevel != 0, audioLevel != nil { size += perElement + 1 }
        if ids.absSendTime != 0 { size += perElement + 3 }
        if ids.transportWideCC != 0 { size += perElement + 2 }
        if ids.absCaptureTime != 0, let value = absCaptureTime { size += perElement + value.count }
        if descriptorSize > 0 { size += perElement + descriptorSize }
        guard size > 0 else { return (0, false) }
        return (4 + (size + 3) & ~3, twoByte)
    }
}

/// One consumer's RFC 8285 block when it carries only its mid, abs-send-time and the
/// transport-wide sequence number (each when negotiated): the same bytes for every packet but the
/// two values each send sets. Written once with the consumer (`Consumer.fixedBlock`) by the same
/// code as any block, then copied into each packet with those values patched in at their offsets:
/// writing it element by element for every copy cost about 240 instructions, the copy about 40.
struct FixedExtensionBlock {
    /// The whole block (header, elements, padding), owned by the consumer (`deallocate`).
    let bytes: UnsafeRawBufferPointer
    let twoByte: Bool
    /// Where in the block the abs-send-time value (3 bytes) and the transport-wide sequence
    /// number (2 bytes) go; -1 when not negotiated.
    let absSendTimeOffset: Int
    let transportSequenceOffset: Int

    /// Nil when the subscriber negotiated none of the three (no block is written).
    static func make(ids: HeaderExtensionIDs, mid: UnsafeRawBufferPointer) -> FixedExtensionBlock? {
        let template = OutgoingExtensions(ids: ids, mid: mid, audioLevel: nil, absSendTime: 0, transportSequence: 0)
        let (size, twoByte) = template.blockSize()
        guard size > 0 else { return nil }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 4)
        RTPForwardWriter.writeBlock(template, twoByte: twoByte, size: size, at: storage.baseAddress!)
        // The elements' order in `writeBlock`: mid, audio level (absent here), abs-send-time,
        // transport-wide sequence number; each value after its 1- or 2-byte element header.
        let header = twoByte ? 2 : 1
        var cursor = 4
        if ids.mid != 0, !mid.isEmpty { cursor += header + mid.count }
        var absSendTime = -1, transportSequence = -1
        if ids.absSendTime != 0 {
            absSendTime = cursor + header
            cursor += header + 3
        }
        if ids.transportWideCC != 0 { transportSequence = cursor + header }
        return FixedExtensionBlock(bytes: UnsafeRawBufferPointer(storage), twoByte: twoByte,
                                   absSendTimeOffset: absSendTime, transportSequenceOffset: transportSequence)
    }

    func deallocate() { bytes.deallocate() }

    /// Copies the block to `block` with this packet's values.
    @inline(__always)
    func write(at block: UnsafeMutableRawPointer, absSendTime: UInt32, transportSequence: UInt16) {
        block.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        if absSendTimeOffset >= 0 {
            block.storeBytes(of: UInt8(truncatingIfNeeded: absSendTime >> 16), toByteOffset: absSendTimeOffset, as: UInt8.self)
            block.storeBytes(of: UInt8(truncatingIfNeeded: absSendTime >> 8), toByteOffset: absSendTimeOffset + 1, as: UInt8.self)
            block.storeBytes(of: UInt8(truncatingIfNeeded: absSendTime), toByteOffset: absSendTimeOffset + 2, as: UInt8.self)
        }
        if transportSequenceOffset >= 0 {
            block.storeBytes(of: transportSequence.bigEndian, toByteOffset: transportSequenceOffset, as: UInt16.self)
        }
    }
}

/// Writes a forwarded packet into a send slot in one pass: the fixed header with the consumer's
/// SSRC, sequence number, timestamp and payload type; the CSRCs as they were; a fresh RFC 8285
/// extension block with only what the subscriber negotiated (the publisher's ids, its rid and
/// its mid mean nothing to the subscriber); then payload and padding unchanged.
enum RTPForwardWriter {
    /// A RED payload (RFC 2198 §3) written around the source's payload (its padding left out): a
    /// plain Opus packet toward a lossy subscriber that negotiated RED (`Consumer.addsRED`).
    struct REDWrap {
        /// The previous packet's payload, the redundant block; nil: the primary block alone.
        /// Its length and `timestampOffset` fit a block header (checked by the caller).
        var redundant: UnsafeRawBufferPointer?
        var timestampOffset: UInt32
        /// Both blocks' payload type: the subscriber's Opus.
        var blockPayloadType: UInt8

        /// Bytes of the RED payload around a primary block of `primaryLength` bytes.
        func length(primaryLength: Int) -> Int { (redundant.map { 4 + $0.count } ?? 0) + 1 + primaryLength }
    }

    /// - Parameter payload: the payload to write instead of the source's payload and padding
    ///   (a part of it: the primary block of a RED packet toward a subscriber without RED); the
    ///   packet then has no padding.
    /// - Parameter red: the source's payload goes out as the primary block of this RED payload;
    ///   the packet then has no padding.
    /// - Returns: the packet length, or nil when it does not fit `slot`.
    static func write(_ source: RTPPacketView, into slot: UnsafeMutableRawBufferPointer,
                      ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadType: UInt8,
                      extensions: OutgoingExtensions, payload: UnsafeRawBufferPointer? = nil, red: REDWrap? = nil) -> Int? {
        let csrcBytes = source.csrcCount * 4
        let (blockSize, twoByte) = extensions.blockSize()
        let body = payload ?? (red != nil ? source.payload : UnsafeRawBufferPointer(rebasing: source.bytes[source.headerLength...]))
        let bodyLength = red?.length(primaryLength: body.count) ?? body.count
        let total = 12 + csrcBytes + blockSize + bodyLength
        guard total <= slot.count, let out = slot.baseAddress, let input = source.bytes.baseAddress else { return nil }

        // RFC 3550 §5.1: keep V, P (unless the payload is replaced or wrapped) and CC; X only
        // when a block follows; keep M.
        let first = source.bytes[0] & (payload == nil && red == nil ? 0xEF : 0xCF)
        out.storeBytes(of: first | (blockSize > 0 ? 0x10 : 0), as: UInt8.self)
        out.storeBytes(of: (source.bytes[1] & 0x80) | (payloadType & 0x7F), toByteOffset: 1, as: UInt8.self)
        out.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        out.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        out.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        if csrcBytes > 0 { (out + 12).copyMemory(from: input + 12, byteCount: csrcBytes) }

        var offset = 12 + csrcBytes
        if blockSize > 0 {
            writeBlock(extensions, twoByte: twoByte, size: blockSize, at: out + offset)
            offset += blockSize
        }
        if let red {
            // Sized above by `REDWrap.length`: it fits, and the caller checked the block's header limits.
            _ = REDPayloadWriter.write(primary: body, payloadType: red.blockPayloadType, redundant: red.redundant,
                                       timestampOffset: red.timestampOffset,
                                       into: UnsafeMutableRawBufferPointer(start: out + offset, count: bodyLength))
        } else if bodyLength > 0, let bodyStart = body.baseAddress {
            (out + offset).copyMemory(from: bodyStart, byteCount: bodyLength)
        }
        return total
    }

    /// A padding-only packet (RFC 3550 §5.1: P set, the last octet counts the padding octets,
    /// itself included; no payload): marker clear, the extensions of `extensions`.
    /// - Parameter paddingLength: 1…255 octets.
    /// - Returns: the packet length, or nil when it does not fit `slot`.
    static func writePadding(into slot: UnsafeMutableRawBufferPointer, ssrc: UInt32, sequenceNumber: UInt16,
                             timestamp: UInt32, payloadType: UInt8, extensions: OutgoingExtensions, paddingLength: Int) -> Int? {
        let padding = min(255, max(1, paddingLength))
        let (blockSize, twoByte) = extensions.blockSize()
        let total = 12 + blockSize + padding
        guard total <= slot.count, let out = slot.baseAddress else { return nil }
        out.storeBytes(of: 0xA0 | (blockSize > 0 ? 0x10 : 0), as: UInt8.self)  // V=2, P=1, X, CC=0
        out.storeBytes(of: payloadType & 0x7F, toByteOffset: 1, as: UInt8.self)
        out.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        out.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        out.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        if blockSize > 0 { writeBlock(extensions, twoByte: twoByte, size: blockSize, at: out + 12) }
        (out + 12 + blockSize).initializeMemory(as: UInt8.self, repeating: 0, count: padding - 1)
        out.storeBytes(of: UInt8(padding), toByteOffset: total - 1, as: UInt8.self)
        return total
    }

    static func writeBlock(_ e: OutgoingExtensions, twoByte: Bool, size: Int, at block: UnsafeMutableRawPointer) {
        if e.usesFixedBlock, let fixed = e.fixed {
            fixed.write(at: block, absSendTime: e.absSendTime, transportSequence: e.transportSequence)
            return
        }
        // RFC 8285 §4.2 (0xBEDE) / §4.3 (0x1000), length in 32-bit words after this header.
        block.storeBytes(of: (twoByte ? UInt16(0x1000) : 0xBEDE).bigEndian, as: UInt16.self)
        block.storeBytes(of: UInt16((size - 4) / 4).bigEndian, toByteOffset: 2, as: UInt16.self)
        var cursor = block + 4
        func element(_ id: UInt8, _ length: Int) {
            if twoByte {
                cursor.storeBytes(of: id, as: UInt8.self)
                cursor.storeBytes(of: UInt8(length), toByteOffset: 1, as: UInt8.self)
                cursor += 2
            } else {
                cursor.storeBytes(of: id << 4 | UInt8(length - 1), as: UInt8.self)
                cursor += 1
            }
        }
        if e.ids.mid != 0, !e.mid.isEmpty {
            element(e.ids.mid, e.mid.count)
            cursor.copyMemory(from: e.mid.baseAddress!, byteCount: e.mid.count)
            cursor += e.mid.count
        }
        if e.ids.audioLevel != 0, let level = e.audioLevel {
            element(e.ids.audioLevel, 1)
            cursor.storeBytes(of: level, as: UInt8.self)
            cursor += 1
        }
        if e.ids.absSendTime != 0 {
            element(e.ids.absSendTime, 3)
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: e.absSendTime >> 16), as: UInt8.self)
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: e.absSendTime >> 8), toByteOffset: 1, as: UInt8.self)
            cursor.storeBytes(of: UInt8(truncatingIfNeeded: e.absSendTime), toByteOffset: 2, as: UInt8.self)
            cursor += 3
        }
        if e.ids.transportWideCC != 0 {
            element(e.ids.transportWideCC, 2)
            cursor.storeBytes(of: e.transportSequence.bigEndian, as: UInt16.self)
            cursor += 2
        }
        if e.ids.absCaptureTime != 0, let value = e.absCaptureTime, let source = value.baseAddress {
            element(e.ids.absCaptureTime, value.count)
            cursor.copyMemory(from: source, byteCount: value.count)
            cursor += value.count
        }
        let descriptorSize = e.dependencyDescriptorSize
        if descriptorSize > 0, let value = e.dependencyDescriptor, let source = value.baseAddress {
            element(e.ids.dependencyDescriptor, descriptorSize)
            let out = UnsafeMutableRawBufferPointer(start: cursor, count: descriptorSize)
            if let rewrite = e.descriptorRewrite {
                // Sized by `rewrittenLength()` from the layout read off this very value: it fits.
                _ = rewrite.layout.rewrite(value, activeDecodeTargets: rewrite.activeDecodeTargets, into: out)
            } else {
                cursor.copyMemory(from: source, byteCount: descriptorSize)
            }
            cursor += descriptorSize
        }
        // Zero padding to the word boundary (RFC 8285 §4.1).
        let end = block + size
        while cursor < end {
            cursor.storeBytes(of: 0, as: UInt8.self)
            cursor += 1
        }
    }

    /// abs-send-time (6.18 fixed-point seconds, 24 bits) from the monotonic clock: receivers only
    /// use its differences, so the epoch does not matter.
    @inline(__always)
    static func absSendTime(micros: Int64) -> UInt32 {
        // Only the time modulo 64 s is carried.
        UInt32(truncatingIfNeeded: ((micros % 64_000_000) << 18) / 1_000_000) & 0xFF_FFFF
    }
}
