/// A user data packet of SRTC (docs/protocol.md, "Data messages"): one binary message on the
/// subscribe transport's data channel 0 (reliable) or 1 (lossy). The SFU reads only the header.
///
/// A client publishes with kind 1, naming its recipients:
///
///     kind = 1 | count n (0: everyone else) | n × (length 1…255 | uid UTF-8) | topic length | topic | payload
///
/// The server delivers with kind 2, naming the sender (length 0: the customer's backend):
///
///     kind = 2 | sender length | sender uid UTF-8 | topic length | topic | payload
///
/// Between the nodes of a cluster (docs/deploy.md, "Channels larger than a node"), on the data
/// channels of the relay transport, a published packet travels as kind 3: the publish packet
/// after its kind byte, preceded by the original sender (length 0: the customer's backend):
///
///     kind = 3 | sender length | sender uid UTF-8 | count n | n × (length | uid) | topic length | topic | payload
///
/// Every length is one byte; the payload is the rest of the message.
public enum DataPacket {
    /// The kind byte of a packet a client publishes.
    public static let publishKind: UInt8 = 1
    /// The kind byte of a packet the server delivers.
    public static let deliveryKind: UInt8 = 2
    /// The kind byte of a packet relayed between nodes.
    public static let relayKind: UInt8 = 3
    /// The largest packet, header included, either side sends or accepts (docs/protocol.md).
    public static let maxSize = 16_384
    /// The largest relayed packet: a publish packet of `maxSize` with a sender of 255 bytes.
    public static let relayMaxSize = maxSize + 256

    /// A publish packet read in place: byte ranges into the message, no copies.
    public struct Publish {
        public var topic: Range<Int>
        public var payload: Range<Int>

        /// Reads a kind-1 packet; `recipients` receives the uids as ranges of `bytes` (empty:
        /// everyone else). It is the caller's reused scratch storage: its capacity stays.
        public init(parsing bytes: UnsafeRawBufferPointer, recipients scratch: inout [Range<Int>]) throws(DataPacketError) {
            guard bytes.count <= DataPacket.maxSize else { throw .tooLarge }
            guard bytes.count >= 3 else { throw .truncated }
            guard bytes[0] == DataPacket.publishKind else { throw .wrongKind(bytes[0]) }
            try self.init(parsingBody: bytes, at: 1, recipients: &scratch)
        }

        /// Reads the part after the kind byte (and, relayed, the sender): count, recipients,
        /// topic, payload, from `offset`.
        init(parsingBody bytes: UnsafeRawBufferPointer, at offset: Int, recipients scratch: inout [Range<Int>]) throws(DataPacketError) {
            guard offset < bytes.count else { throw .truncated }
            scratch.removeAll(keepingCapacity: true)
            let count = Int(bytes[offset])
            var offset = offset + 1
            for _ in 0..<count {
                let uid = try Self.field(bytes, at: &offset)
                guard !uid.isEmpty else { throw .emptyRecipient }
                scratch.append(uid)
            }
            topic = try Self.field(bytes, at: &offset)
            payload = offset..<bytes.count
        }

        /// One length-prefixed field starting at `offset`; moves `offset` past it.
        static func field(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) throws(DataPacketError) -> Range<Int> {
            guard offset < bytes.count else { throw .truncated }
            let start = offset + 1, end = start + Int(bytes[offset])
            guard end <= bytes.count else { throw .truncated }
            offset = end
            return start..<end
        }
    }

    /// A packet relayed between nodes (kind 3) read in place: the original sender, and the
    /// publish packet's recipients, topic and payload, as byte ranges into the message.
    public struct Relayed {
        /// Empty: the customer's backend.
        public var sender: Range<Int>
        /// The publish packet's fields.
        public var published: Publish

        /// Reads a kind-3 packet; `recipients` as in `Publish.init(parsing:recipients:)`.
        public init(parsing bytes: UnsafeRawBufferPointer, recipients scratch: inout [Range<Int>]) throws(DataPacketError) {
            guard bytes.count <= DataPacket.relayMaxSize else { throw .tooLarge }
            guard bytes.count >= 4 else { throw .truncated }
            guard bytes[0] == DataPacket.relayKind else { throw .wrongKind(bytes[0]) }
            var offset = 1
            sender = try Publish.field(bytes, at: &offset)
            published = try Publish(parsingBody: bytes, at: offset, recipients: &scratch)
        }
    }

    /// A delivered packet, as a client reads it.
    public struct Delivery: Equatable, Sendable {
        /// The sender's uid; nil when the customer's backend sent it (server API).
        public var from: String?
        public var topic: String?
        public var payload: [UInt8]

        public init(from: String?, topic: String?, payload: [UInt8]) {
            self.from = from
            self.topic = topic
            self.payload = payload
        }

        public init(parsing bytes: UnsafeRawBufferPointer) throws(DataPacketError) {
            guard bytes.count >= 3 else { throw .truncated }
            guard bytes[0] == DataPacket.deliveryKind else { throw .wrongKind(bytes[0]) }
            var offset = 1
            let sender = try Publish.field(bytes, at: &offset)
            let topic = try Publish.field(bytes, at: &offset)
            from = nil
            self.topic = nil
            if !sender.isEmpty { from = try DataPacket.text(bytes, sender) }
            if !topic.isEmpty { self.topic = try DataPacket.text(bytes, topic) }
            payload = Array(bytes[offset...])
        }
    }

    static func text(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws(DataPacketError) -> String {
        guard let s = String(validating: bytes[range], as: UTF8.self) else { throw .invalidText }
        return s
    }

    /// A kind-1 packet (what `Channel.publishData` sends).
    public static func publish(payload: [UInt8], to recipients: [String], topic: String?) throws(DataPacketError) -> [UInt8] {
        guard recipients.count <= 255 else { throw .tooManyRecipients }
        var out: [UInt8] = [publishKind, UInt8(recipients.count)]
        for uid in recipients {
            guard !uid.isEmpty else { throw .emptyRecipient }
            try appendField(Array(uid.utf8), to: &out)
        }
        try appendField(Array((topic ?? "").utf8), to: &out)
        out += payload
        guard out.count <= maxSize else { throw .tooLarge }
        return out
    }

    /// Writes a kind-2 packet into `out` (cleared first, capacity kept): the SFU's fan-out
    /// builds it once per message. `sender` empty: from the backend.
    public static func writeDelivery(sender: some Collection<UInt8>, topic: UnsafeRawBufferPointer,
                                     payload: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(DataPacketError) {
        guard sender.count <= 255, topic.count <= 255 else { throw .fieldTooLong }
        out.removeAll(keepingCapacity: true)
        out.append(deliveryKind)
        out.append(UInt8(sender.count))
        out.append(contentsOf: sender)
        out.append(UInt8(topic.count))
        out.append(contentsOf: topic)
        out.append(contentsOf: payload)
        guard out.count <= maxSize else { throw .tooLarge }
    }

    /// Writes a kind-3 packet into `out` (cleared first, capacity kept): `sender` (empty: the
    /// backend) before the body of the publish packet `published` (everything after its kind
    /// byte), which is not read again: the SFU parsed it.
    public static func writeRelay(sender: some Collection<UInt8>, published: UnsafeRawBufferPointer,
                                  into out: inout [UInt8]) throws(DataPacketError) {
        guard sender.count <= 255 else { throw .fieldTooLong }
        guard !published.isEmpty, published[0] == publishKind else { throw published.isEmpty ? .truncated : .wrongKind(published[0]) }
        out.removeAll(keepingCapacity: true)
        out.append(relayKind)
        out.append(UInt8(sender.count))
        out.append(contentsOf: sender)
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: published[1...]))
        guard out.count <= relayMaxSize else { throw .tooLarge }
    }

    private static func appendField(_ field: [UInt8], to out: inout [UInt8]) throws(DataPacketError) {
        guard field.count <= 255 else { throw .fieldTooLong }
        out.append(UInt8(field.count))
        out += field
    }
}

/// Why a user data packet was refused.
public enum DataPacketError: Error, Sendable, Equatable {
    /// Fewer bytes than the header, or a length field runs past the end.
    case truncated
    /// The first byte is not the kind expected here (1 from clients, 2 from the server, 3 between nodes).
    case wrongKind(UInt8)
    /// More than `DataPacket.maxSize` bytes.
    case tooLarge
    /// A uid or topic longer than 255 bytes.
    case fieldTooLong
    /// More than 255 recipients.
    case tooManyRecipients
    /// A recipient uid of length 0.
    case emptyRecipient
    /// The sender or topic is not UTF-8.
    case invalidText
}
