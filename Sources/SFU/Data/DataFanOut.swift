import RTCTransport
import RTCWire

/// Counters of the user data routed by one router.
public struct DataRoutingCounters: Sendable, Equatable {
    /// Packets published by participants (or the backend), or relayed from another node, that
    /// parsed and were allowed.
    public var published = 0
    /// Copies delivered to recipients' data channels.
    public var delivered = 0
    /// Copies sent to other nodes on relay transports.
    public var relayed = 0
    /// Packets dropped: malformed, too large, or from a participant without `publish_data`.
    public var dropped = 0
}

/// Routes user data packets (docs/protocol.md, "Data messages") between the data channels of one
/// router's transports, as the router forwards media: the sender's packet is read in place, the
/// delivery packet (sender uid, topic, payload) is written once into reused storage and sent on
/// the same channel id (0 reliable, 1 lossy) of every recipient's transport. Payloads are never
/// read. I/O thread only.
///
/// A channel that spans nodes (docs/deploy.md, "Channels larger than a node") has relay
/// transports (`MediaTransport.dataRelay`) between its routers, a star around the channel's node.
/// A packet published here also goes, once per relay transport and on the same channel id, as a
/// relayed packet (kind 3: the sender's uid and the publish packet, recipients included); each
/// node delivers it to its own recipients. A relayed packet that arrived on a relay transport is
/// forwarded as it is to the other relay transports, never back on the one it came from, so
/// nothing loops and each node receives it once.
struct DataFanOut {
    private var recipients: [Range<Int>] = []
    private var delivery: [UInt8] = []
    private var relay: [UInt8] = []
    private(set) var counters = DataRoutingCounters()

    init() {
        recipients.reserveCapacity(16)
        delivery.reserveCapacity(DataPacket.maxSize)
        relay.reserveCapacity(DataPacket.relayMaxSize)
    }

    /// A binary message from `sender`'s channel `channel`: forwards it, or drops it and says why.
    mutating func route(_ message: UnsafeRawBufferPointer, channel: UInt16, from sender: MediaTransport,
                        among transports: [MediaTransport]) {
        if sender.dataRelay {
            routeRelayed(message, channel: channel, from: sender, among: transports)
            return
        }
        guard sender.dataPublisher else { counters.dropped += 1; return }
        let packet: DataPacket.Publish
        do { packet = try DataPacket.Publish(parsing: message, recipients: &recipients) } catch { counters.dropped += 1; return }
        let uid = sender.participant.rawValue.utf8
        do {
            try DataPacket.writeDelivery(sender: uid, topic: UnsafeRawBufferPointer(rebasing: message[packet.topic]),
                                         payload: UnsafeRawBufferPointer(rebasing: message[packet.payload]), into: &delivery)
        } catch {
            counters.dropped += 1
            return
        }
        counters.published += 1
        deliver(channel: channel, sender: uid, recipientsIn: message, except: sender, among: transports)
        guard transports.contains(where: { $0.dataRelay && $0.carriesData }),
              (try? DataPacket.writeRelay(sender: uid, published: message, into: &relay)) != nil else { return }
        let relayed = relay.withUnsafeBytes { forwardRelayed($0, on: channel, except: sender, among: transports) }
        counters.relayed += relayed
    }

    /// A relayed packet from another node: delivered to the recipients here (none of them
    /// the sender), and forwarded to the other nodes this router relays to.
    private mutating func routeRelayed(_ message: UnsafeRawBufferPointer, channel: UInt16, from link: MediaTransport,
                                       among transports: [MediaTransport]) {
        let packet: DataPacket.Relayed
        do { packet = try DataPacket.Relayed(parsing: message, recipients: &recipients) } catch { counters.dropped += 1; return }
        let sender = UnsafeRawBufferPointer(rebasing: message[packet.sender])
        do {
            try DataPacket.writeDelivery(sender: sender, topic: UnsafeRawBufferPointer(rebasing: message[packet.published.topic]),
                                         payload: UnsafeRawBufferPointer(rebasing: message[packet.published.payload]), into: &delivery)
        } catch {
            counters.dropped += 1
            return
        }
        counters.published += 1
        deliver(channel: channel, sender: sender, recipientsIn: message, except: link, among: transports)
        let relayed = forwardRelayed(message, on: channel, except: link, among: transports)
        counters.relayed += relayed
    }

    /// Sends `delivery` to the participants' transports (not relays, not `except`, not the
    /// sender's) named by `recipients` (ranges of `message`; none: everyone).
    private mutating func deliver(channel: UInt16, sender: some Collection<UInt8>, recipientsIn message: UnsafeRawBufferPointer,
                                  except source: MediaTransport, among transports: [MediaTransport]) {
        for transport in transports where transport !== source && !transport.dataRelay {
            let participant = transport.participant.rawValue.utf8
            guard !participant.elementsEqual(sender) else { continue }
            guard recipients.isEmpty || recipients.contains(where: { range in
                participant.elementsEqual(UnsafeRawBufferPointer(rebasing: message[range]))
            }) else { continue }
            if send(delivery, on: channel, to: transport) { counters.delivered += 1 }
        }
    }

    /// Sends a relayed packet on every relay transport but `source`; how many took it.
    private func forwardRelayed(_ packet: UnsafeRawBufferPointer, on channel: UInt16, except source: MediaTransport?,
                                among transports: [MediaTransport]) -> Int {
        var count = 0
        for transport in transports where transport.dataRelay && transport !== source {
            if send(packet, on: channel, to: transport) { count += 1 }
        }
        return count
    }

    /// A packet from the customer's backend (server API): delivered on `channel` to `uids`
    /// (empty: everyone) here, and relayed to the other nodes for theirs. Returns the number of
    /// recipients here whose channel took it.
    mutating func publish(payload: [UInt8], topic: String?, channel: UInt16, to uids: Set<String>,
                          among transports: [MediaTransport]) throws(DataPacketError) -> Int {
        // The relayed packet first: one it cannot make (too many uids) fails the call before
        // anything was delivered.
        let relays = transports.contains(where: \.dataRelay)
        if relays {
            let published = try DataPacket.publish(payload: payload, to: uids.sorted(), topic: topic)
            let written = published.withUnsafeBytes { raw in
                Result { () throws(DataPacketError) in try DataPacket.writeRelay(sender: EmptyCollection<UInt8>(), published: raw, into: &relay) }
            }
            try written.get()
        }
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
        for transport in transports where !transport.dataRelay && (uids.isEmpty || uids.contains(transport.participant.rawValue)) {
            if send(delivery, on: channel, to: transport) { count += 1 }
        }
        counters.delivered += count
        if relays {
            let relayed = relay.withUnsafeBytes { forwardRelayed($0, on: channel, except: nil, among: transports) }
            counters.relayed += relayed
        }
        return count
    }

    private func send(_ packet: [UInt8], on channel: UInt16, to transport: MediaTransport) -> Bool {
        packet.withUnsafeBytes { send($0, on: channel, to: transport) }
    }

    private func send(_ packet: UnsafeRawBufferPointer, on channel: UInt16, to transport: MediaTransport) -> Bool {
        guard transport.carriesData else { return false }
        return transport.sink.sendUserData(packet, on: channel)
    }
}
