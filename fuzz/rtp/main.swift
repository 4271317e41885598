// libFuzzer target: RTP bytes through the view, the in-place mutators and the owned packet.
// The view and the owned parse must agree; a parsed packet must serialize to bytes that parse
// back equal; in-place rewrites must leave a packet that still parses.
import RTCWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let view = try? RTPPacketView(bytes)
    let owned = try? RTPPacket(parsing: bytes)
    precondition((view == nil) == (owned == nil), "view and owned parse disagree")
    guard let view, let owned else { return 0 }

    // Read everything the view offers.
    var checksum = Int(view.sequenceNumber) &+ Int(view.timestamp) &+ Int(view.ssrc) &+ view.payload.count
    for index in 0 ..< view.csrcCount { checksum &+= Int(view.csrc(at: index)) }
    for element in view.extensionElements {
        checksum &+= element.valueRange.count
        let value = UnsafeRawBufferPointer(rebasing: bytes[element.valueRange])
        _ = try? AudioLevelExtension(parsing: value)
        _ = try? AbsSendTimeExtension(parsing: value)
        _ = try? TransportSequenceNumberExtension(parsing: value)
        _ = try? StreamIdentifierExtension(parsing: value)
        _ = StreamIdentifierExtension.matches(value, "h")
    }
    for id in UInt8(0) ... 15 { checksum &+= view.extensionValue(id: id)?.count ?? 0 }
    precondition(RTPPacket(view) == owned)

    // Owned round trip, both serializers.
    let serialized = owned.serialize()
    precondition(serialized.count == owned.serializedSize)
    var buffer = [UInt8](repeating: 0xAA, count: owned.serializedSize + 4)
    let written = buffer.withUnsafeMutableBytes { owned.serialize(into: $0) }
    precondition(written == serialized.count && Array(buffer.prefix(written)) == serialized)
    guard let again = try? RTPPacket(parsing: serialized) else { preconditionFailure("serialized packet does not parse") }
    precondition(again == owned, "round trip changed the packet")

    // In-place rewrites keep the packet valid.
    var copy = Array(bytes)
    copy.withUnsafeMutableBytes { raw in
        guard let packet = try? RTPMutablePacketView(raw) else { preconditionFailure("copy does not parse") }
        packet.ssrc = ~packet.ssrc
        packet.sequenceNumber &+= 1
        packet.timestamp &+= 960
        packet.marker.toggle()
        packet.payloadType = 127 - packet.payloadType
        // Each call walks the block, so stay at 16 elements to keep the harness linear.
        for element in packet.view.extensionElements.prefix(16) {
            packet.setTransportSequenceNumber(0xBEEF, id: element.id)
            packet.setAbsSendTime(AbsSendTimeExtension(rawValue: 0x123456), id: element.id)
            packet.rewriteExtensionID(from: element.id, to: element.id % 14 + 1)
        }
        if let first = packet.view.extensionElements.first(where: { _ in true }) { packet.removeExtension(id: first.id) }
        guard (try? RTPPacketView(UnsafeRawBufferPointer(raw))) != nil else { preconditionFailure("rewrite broke the packet") }
    }
    return checksum == Int.min ? 1 : 0
}
