// libFuzzer target for SRTC user data packets (docs/protocol.md, "Data messages"): the SFU reads
// the publish header of every binary data channel message, clients read the delivery header.
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
    }
    _ = try? DataPacket.Delivery(parsing: input)
    return 0
}
