// libFuzzer target: compound RTCP. A parsed compound must serialize to bytes that parse back
// equal, and the non-allocating compound view must agree with the parser on packet boundaries.
import RTCWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var sliceCount = -1
    if let view = try? RTCPCompoundView(bytes) {
        sliceCount = 0
        for slice in view {
            sliceCount += 1
            _ = slice.senderSSRC
            _ = slice.mediaSSRC
        }
    }
    guard let packets = try? RTCPCompound.parse(bytes) else { return 0 }
    precondition(sliceCount == packets.count, "compound view and parser disagree")

    for packet in packets {
        switch packet {
        case .nack(let nack): _ = nack.lostSequenceNumbers
        case .transportCC(let feedback): _ = feedback.packetResults
        case .sourceDescription(let sdes): for chunk in sdes.chunks { for item in chunk.items { _ = item.text } }
        case .goodbye(let bye): _ = bye.reasonText
        default: break
        }
    }

    let serialized = RTCPCompound.serialize(packets)
    precondition(serialized.count == RTCPCompound.serializedSize(packets))
    guard let again = try? RTCPCompound.parse(serialized) else { preconditionFailure("serialized compound does not parse") }
    precondition(again == packets, "round trip changed the compound")
    return 0
}
