/// How a data channel delivers: ordered or not, and reliable, limited by retransmissions, or
/// limited by lifetime. The six DATA_CHANNEL_OPEN channel types (RFC 8832 §5.1) in two fields.
public struct DataChannelReliability: Sendable, Equatable, Hashable {
    public enum Limit: Sendable, Equatable, Hashable {
        /// Retransmit until delivered.
        case reliable
        /// Give up after this many retransmissions (0: send once).
        case maxRetransmits(UInt32)
        /// Give up after this many milliseconds.
        case maxLifetime(UInt32)
    }

    public var ordered: Bool
    public var limit: Limit

    public init(ordered: Bool = true, limit: Limit = .reliable) {
        self.ordered = ordered
        self.limit = limit
    }

    /// Ordered and reliable: the default channel.
    public static let reliable = DataChannelReliability()
    /// Unordered, sent once: for data where late is as good as lost.
    public static let lossy = DataChannelReliability(ordered: false, limit: .maxRetransmits(0))

    /// The wire's channel type byte (high bit: unordered) and reliability parameter.
    var channelType: (type: UInt8, parameter: UInt32) {
        let unordered: UInt8 = ordered ? 0 : 0x80
        switch limit {
        case .reliable: return (0x00 | unordered, 0)
        case .maxRetransmits(let count): return (0x01 | unordered, count)
        case .maxLifetime(let ms): return (0x02 | unordered, ms)
        }
    }

    init(channelType: UInt8, parameter: UInt32) throws(DataChannelError) {
        ordered = channelType & 0x80 == 0
        switch channelType & 0x7F {
        case 0x00: limit = .reliable
        case 0x01: limit = .maxRetransmits(parameter)
        case 0x02: limit = .maxLifetime(parameter)
        default: throw .unknownChannelType(channelType)
        }
    }
}
