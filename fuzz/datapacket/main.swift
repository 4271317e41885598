// libFuzzer target for SRTC user data packets (docs/protocol.md, "Data messages"): the SFU reads
// the publish header of every binary data channel message, clients read the delivery header, and
// the nodes of a cluster read the relayed header (kind 3) of what crosses their relay transports
// (docs/deploy.md, "Channels larger than a node").
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func dataPacketFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var recipients: [Range<Int>] = []
    if let packet = try? DataPacket.Publish(parsing: input, recipients: &recipients) {
        for range in recipients + [packet.topic, packet.payload] {
            precondition(range.lowerBound >= 0 && range.upperBound <= size, "range outside the input")
        }
        // A publish packet that parsed relays, and the relayed packet reads back to the same fields.
        let published = (recipients.map { Array(input[$0]) }, Array(input[packet.topic]), Array(input[packet.payload]))
        var relayed: [UInt8] = []
        try! DataPacket.writeRelay(sender: "alice".utf8, published: input, into: &relayed)
        relayed.withUnsafeBytes { raw in
            var again: [Range<Int>] = []
            let back = try! DataPacket.Relayed(parsing: raw, recipients: &again)
            precondition(Array(raw[back.sender]) == Array("alice".utf8), "sender changed")
            precondition(again.map { Array(raw[$0]) } == published.0 && Array(raw[back.published.topic]) == published.1
                         && Array(raw[back.published.payload]) == published.2, "relay changed the packet")
        }
    }
    if let relayed = try? DataPacket.Relayed(parsing: input, recipients: &recipients) {
        for range in recipients + [relayed.sender, relayed.published.topic, relayed.published.payload] {
            precondition(range.lowerBound >= 0 && range.upperBound <= size, "range outside the input")
        }
    }
    _ = try? DataPacket.Delivery(parsing: input)
    return 0
}
