// RTCWire per-packet costs: RTP parse + rewrite through the zero-copy view (the SFU's forwarding
// path) and through the owned RTPPacket, at 200-byte (audio-sized) and 1200-byte (video-sized)
// packets; plus RTCP compound and SDP parse for scale. Figures are printed, never asserted.
//
// WIRE_BENCH_ITERATIONS scales the loops (default 2,000,000 per RTP case); WIRE_BENCH_CASES=view
// runs only the view cases. Running `WIRE_BENCH_CASES=view valgrind .build/release/srtc-bench`
// with two iteration counts shows the heap allocation total does not grow with the count: the
// view path allocates nothing per packet.
import Foundation
import RTCWire

func runWireBenchmarks() {
    let environment = ProcessInfo.processInfo.environment
    let iterations = environment["WIRE_BENCH_ITERATIONS"].flatMap(Int.init) ?? 2_000_000
    let viewOnly = environment["WIRE_BENCH_CASES"] == "view"
    print("== RTCWire (\(iterations) iterations per RTP case)")
    for size in [200, 1200] {
        let packet = WireBench.samplePacket(size: size)
        WireBench.report("RTP view parse + in-place rewrite, \(size) B", iterations: iterations) {
            WireBench.viewParseAndRewrite(packet, iterations: iterations)
        }
        WireBench.report("RTP copy into send buffer + view rewrite, \(size) B", iterations: iterations) {
            WireBench.copyParseAndRewrite(packet, iterations: iterations)
        }
        if viewOnly { continue }
        WireBench.report("RTP owned parse + serialize(into:), \(size) B", iterations: iterations) {
            WireBench.ownedParseAndSerialize(packet, iterations: iterations)
        }
    }
    if viewOnly { return }
    let rtcpIterations = max(iterations / 4, 1)
    WireBench.report("RTCP compound RR+REMB+NACK parse + serialize", iterations: rtcpIterations) {
        WireBench.rtcpRoundTrip(iterations: rtcpIterations)
    }
}

enum WireBench {
    /// V=2 X=1 PT=96 with audio-level, abs-send-time, transport-wide seq and mid in the one-byte form.
    static func samplePacket(size: Int) -> [UInt8] {
        var packet = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 1000, timestamp: 90_000, ssrc: 0x1122_3344)
        packet.setExtension(id: 1, value: AudioLevelExtension(voiceActivity: true, level: 30).serialize())
        packet.setExtension(id: 2, value: AbsSendTimeExtension(rawValue: 0x12_3456).serialize())
        packet.setExtension(id: 3, value: TransportSequenceNumberExtension(sequenceNumber: 7).serialize())
        packet.setExtension(id: 4, value: Array("0".utf8))
        packet.payload = (0 ..< max(0, size - packet.serializedSize)).map { UInt8(truncatingIfNeeded: $0) }
        return packet.serialize()
    }

    /// Runs `body` (which returns a checksum), prints ns per iteration.
    static func report(_ name: String, iterations: Int, _ body: () -> Int) {
        _ = body()  // warm up caches and branch predictors
        let clock = ContinuousClock()
        var checksum = 0
        let elapsed = clock.measure { checksum = body() }
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        let perIteration = nanoseconds / Double(iterations)
        let name = name.padding(toLength: 56, withPad: " ", startingAt: 0)
        print("  \(name) \(String(format: "%8.1f", perIteration)) ns/packet   (checksum \(checksum & 0xFFFF))")
    }

    /// The SFU's step per consumer: validate, rewrite SSRC / sequence / timestamp / PT and the
    /// transport-wide sequence number, read the audio level.
    static func viewParseAndRewrite(_ packet: [UInt8], iterations: Int) -> Int {
        var buffer = packet
        var checksum = 0
        buffer.withUnsafeMutableBytes { raw in
            for index in 0 ..< iterations {
                guard let view = try? RTPMutablePacketView(raw) else { continue }
                view.ssrc = 0xA1A2_A3A4
                view.sequenceNumber = UInt16(truncatingIfNeeded: index)
                view.timestamp = UInt32(truncatingIfNeeded: index &* 960)
                view.payloadType = 100
                view.setTransportSequenceNumber(UInt16(truncatingIfNeeded: index), id: 3)
                if let level = view.view.extensionValue(id: 1), let first = level.first { checksum &+= Int(first) }
                checksum &+= view.view.payloadRange.count
            }
        }
        return checksum
    }

    /// As above, with the one copy into a per-consumer send buffer first.
    static func copyParseAndRewrite(_ packet: [UInt8], iterations: Int) -> Int {
        var send = [UInt8](repeating: 0, count: 1500)
        var checksum = 0
        packet.withUnsafeBytes { source in
            send.withUnsafeMutableBytes { target in
                let slot = UnsafeMutableRawBufferPointer(rebasing: target[0 ..< source.count])
                for index in 0 ..< iterations {
                    slot.copyMemory(from: source)
                    guard let view = try? RTPMutablePacketView(slot) else { continue }
                    view.ssrc = 0xA1A2_A3A4
                    view.sequenceNumber = UInt16(truncatingIfNeeded: index)
                    view.timestamp = UInt32(truncatingIfNeeded: index &* 960)
                    view.setTransportSequenceNumber(UInt16(truncatingIfNeeded: index), id: 3)
                    checksum &+= Int(slot[2])
                }
            }
        }
        return checksum
    }

    /// Owned packet: parse (allocates the payload and element arrays), edit, serialize(into:).
    static func ownedParseAndSerialize(_ packet: [UInt8], iterations: Int) -> Int {
        var output = [UInt8](repeating: 0, count: 1500)
        var checksum = 0
        packet.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                for index in 0 ..< iterations {
                    guard var parsed = try? RTPPacket(parsing: source) else { continue }
                    parsed.sequenceNumber = UInt16(truncatingIfNeeded: index)
                    checksum &+= parsed.serialize(into: target)
                }
            }
        }
        return checksum
    }

    static func rtcpRoundTrip(iterations: Int) -> Int {
        let packets: [RTCPPacket] = [
            .receiverReport(ReceiverReport(ssrc: 1, reports: [ReceptionReport(ssrc: 2, totalLost: 3, lastSequenceNumber: 4)])),
            .remb(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [2])),
            .nack(TransportLayerNack(senderSSRC: 1, mediaSSRC: 2, lost: [10, 11, 14, 40])),
        ]
        let bytes = RTCPCompound.serialize(packets)
        var output = [UInt8](repeating: 0, count: 1500)
        var checksum = 0
        bytes.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                for _ in 0 ..< iterations {
                    guard let parsed = try? RTCPCompound.parse(source) else { continue }
                    checksum &+= RTCPCompound.serialize(parsed, into: target)
                }
            }
        }
        return checksum
    }
}
