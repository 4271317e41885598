import RTCTransport
import RTCWire

/// Counters of the user data routed by one router.
public struct DataRoutingCounters: Sendable, Equatable {
    /// Packets published by participants (or the backend) that parsed and were allowed.
    public var published = 0
    /// Copies delivered to recipients' data channels.
    public var delivered = 0
    /// Packets dropped: malformed, too large, or from a participant without `publish_data`.
    public var dropped = 0
}

/// Routes user data packets (docs/protocol.md, "Data messages") between the data channels of one
/// router's transports, as the router forwards media: the sender's packet is read in place, the
/// delivery packet (sender uid, topic, payload) is written once into reused storage and sent on
/// the same channel id (0 reliable, 1 lossy) of every recipient's transport. Payloads are never
/// read. I/O thread only.
struct DataFanOut {
    private var recipients: [Range<Int>] = []
    private var delivery: [UInt8] = []
    private(set) var counters = DataRoutingCounters()

    init() {
        recipients.reserveCapacity(16)
        delivery.reserveCapacity(DataPacket.maxSize)
    }

    /// A binary message from `sender`'s channel `channel`: forwards it, or drops it and says why.
    mutating func route(_ message: UnsafeRawBufferPointer, channel: UInt16, from sender: MediaTransport,
                        among transports: [MediaTransport]) {
        guard sender.dataPublisher else { counters.dropped += 1; return }
        let packet: DataPacket.Publish
        do { packet = try DataPacket.Publish(parsing: message, recipients: &recipients) } catch { counters.dropped += 1; return }
        do {
            try DataPacket.writeDelivery(sender: sender.participant.rawValue.utf8, topic: UnsafeRawBufferPointer(rebasing: message[packet.topic]),
                                         payload: UnsafeRawBufferPointer(rebasing: message[packet.payload]), into: &delivery)
        } catch {
            counters.dropped += 1
            return
        }
        counters.published += 1
        for transport in transports where transport !== sender && transport.participant != sender.participant {
            guard recipients.isEmpty || recipients.contains(where: { range in
                transport.participant.rawValue.utf8.elementsEqual(UnsafeRawBufferPointer(rebasing: message[range]))
            }) else { continue }
            if send(delivery, on: channel, to: transport) { counters.delivered += 1 }
        }
    }

    /// A packet from the customer's backend (server API): delivered on `channel` to `uids`
    /// (empty: everyone). Returns the number of recipients whose channel took it.
    mutating func publish(payload: [UInt8], topic: String?, channel: UInt16, to uids: Set<String>,
                          among transports: [MediaTransport]) throws(DataPacketError) -> Int {
        let topicBytes = Array((topic ?? "").utf8)
        let written = topicBytes.withUnsafeBytes { t in
            payload.withUnsafeBytes { p in
                Result { () throws(DataPacketError) in
                    try DataPacket.writeDelivery(sender: EmptyCollection<UInt8>(), topic: t, payload: p, into: &delivery)
                }
            }
        }
        try written.get()
        counters.published += 1
        var count = 0
        for transport in transports where uids.isEmpty || uids.contains(transport.participant.rawValue) {
            if send(delivery, on: channel, to: transport) { count += 1 }
        }
        counters.delivered += count
        return count
    }

    private func send(_ packet: [UInt8], on channel: UInt16, to transport: MediaTransport) -> Bool {
        guard transport.carriesData, let peer = transport.peer else { return false }
        return packet.withUnsafeBytes { raw in (try? peer.sendData(raw, on: channel, binary: true)) != nil }
    }
}
