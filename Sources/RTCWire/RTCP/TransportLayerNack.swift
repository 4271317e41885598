/// Generic NACK (RFC 4585 §6.2.1): RTPFB, PT=205, FMT=1.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=205      |          length               |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// |            PID                |             BLP               |  × n (n ≥ 1)
/// ```
/// PID is a lost sequence number; bit i of BLP marks PID+i+1 as lost too.
public struct TransportLayerNack: RTCPPacketCodable {
    /// One FCI entry.
    public struct Pair: Hashable, Sendable {
        /// The first lost packet.
        public var packetID: UInt16
        /// Bitmask of the 16 following packets: bit i set means `packetID + i + 1` is lost.
        public var lostBitmask: UInt16

        public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }

        /// The sequence numbers this entry reports lost, in order.
        public var lostSequenceNumbers: [UInt16] {
            var numbers = [packetID]
            for bit in 0 ..< 16 where lostBitmask & (1 << bit) != 0 {
                numbers.append(packetID &+ UInt16(bit + 1))
            }
            return numbers
        }
    }

    /// The feedback sender.
    public var senderSSRC: UInt32
    /// The source whose packets are missing.
    public var mediaSSRC: UInt32
    /// FCI entries (at least one on the wire).
    public var pairs: [Pair]

    public static let format: UInt8 = 1

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: [Pair]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// A NACK for `lost` sequence numbers (any order, duplicates allowed; wrap-aware).
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16]) {
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: Self.pairs(lost: lost))
    }

    /// Packs lost sequence numbers into PID+BLP entries, oldest first.
    public static func pairs(lost: [UInt16]) -> [Pair] {
        var pairs: [Pair] = []
        for number in SequenceNumber.sorted(lost) {
            if var last = pairs.last {
                let distance = SequenceNumber.distance(from: last.packetID, to: number)
                if distance == 0 { continue }
                if (1 ... 16).contains(distance) {
                    last.lostBitmask |= 1 << (distance - 1)
                    pairs[pairs.count - 1] = last
                    continue
                }
            }
            pairs.append(Pair(packetID: number))
        }
        return pairs
    }

    /// Every sequence number the packet reports lost, in entry order.
    public var lostSequenceNumbers: [UInt16] { pairs.flatMap(\.lostSequenceNumbers) }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(bytes, packetType: RTCPPacketType.transportFeedback, format: Self.format)
        guard body.count >= 8 else { throw .packetTooShort }
        let fci = body.count - 8
        guard fci >= 4, fci % 4 == 0 else { throw .nackShortFCI }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        pairs = stride(from: 8, to: body.count, by: 4).map { Pair(packetID: body.u16($0), lostBitmask: body.u16($0 + 2)) }
    }

    public var serializedSize: Int { RTCPHeader.size + 8 + pairs.count * 4 }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = serializedSize
        var out = writer(buffer, size: size)
        RTCPHeader.write(count: Self.format, packetType: RTCPPacketType.transportFeedback, size: size, into: &out)
        out.u32(senderSSRC)
        out.u32(mediaSSRC)
        for pair in pairs {
            out.u16(pair.packetID)
            out.u16(pair.lostBitmask)
        }
        return out.offset
    }
}
