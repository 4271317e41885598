// libFuzzer target for the speed-test datagram parser (docs/speed-test.md): header, every kind's
// body, the hello token, and the serialize round trip. Built by `fuzz/run-all`; a crash or
// failed precondition here is a bug.
#if canImport(RTCWire)
import RTCWire
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func speedTestFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    _ = SpeedTestPacket.isSpeedTest(input)
    guard let packet = try? SpeedTestPacket(parsing: input) else { return 0 }
    precondition(packet.size == size, "size is not the datagram's length")
    // What parsed serializes to the same length and parses back to the same packet.
    let bytes = packet.bytes
    precondition(bytes.count == size, "serialized length differs")
    guard let again = try? SpeedTestPacket(bytes: bytes) else { preconditionFailure("serialized packet does not parse") }
    precondition(again == packet, "round trip changed the packet")
    if case .report(let report) = packet.body { _ = report.dataBitrate }
    var arrivals = SpeedTestArrivals()
    arrivals.record(bytes: size, sentMicros: packet.timestampMicros, arrivalMicros: packet.session)
    arrivals.record(bytes: size, sentMicros: packet.session, arrivalMicros: packet.timestampMicros)
    _ = arrivals.bitrate
    return 0
}
