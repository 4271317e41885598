import RTCWire
@testable import SFU

/// A `PacketSink` that keeps every packet a transport sends, for byte-level checks.
final class RecordingSink: PacketSink {
    var rtp: [[UInt8]] = []
    var rtcp: [[UInt8]] = []
    /// Each RTP packet's `stampedAt` (its cause's arrival; 0 for an untimed send).
    var stamps: [Int64] = []
    /// When false, sends are refused (a full or closed transport).
    var accepting = true

    func sendRTP(stampedAt arrival: Int64, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        guard accepting else { return false }
        var slot = [UInt8](repeating: 0xEE, count: 1500)
        let length = slot.withUnsafeMutableBytes { write($0) }
        guard let length else { return false }
        rtp.append(Array(slot[0 ..< length]))
        stamps.append(arrival)
        return true
    }

    func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard accepting else { return false }
        rtcp.append(Array(packet))
        return true
    }

    /// Every RTP packet sent, parsed.
    var packets: [RTPPacket] { rtp.map { try! RTPPacket(parsing: $0) } }

    /// Every RTCP packet sent, parsed out of their compounds.
    var rtcpPackets: [RTCPPacket] { rtcp.flatMap { try! RTCPCompound.parse($0) } }

    func clear() {
        rtp.removeAll()
        rtcp.removeAll()
        stamps.removeAll()
    }
}

/// Collects events in order.
final class EventLog: @unchecked Sendable {
    var events: [SFUEvent] = []

    var layerSwitches: [LayerSwitch] {
        events.compactMap { if case .layerSwitched(_, let change) = $0 { return change } else { return nil } }
    }

    var speakerSnapshots: [[SpeakerLevel]] {
        events.compactMap { if case .activeSpeakers(_, let list) = $0 { return list } else { return nil } }
    }
}
