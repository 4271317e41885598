/// Why a Data Channel Establishment Protocol message (RFC 8832) was rejected.
public enum DataChannelError: Error, Sendable, Equatable {
    /// Fewer bytes than the message type's fixed part, or than its length fields announce.
    case truncated
    /// The first byte is neither DATA_CHANNEL_OPEN (0x03) nor DATA_CHANNEL_ACK (0x02) (RFC 8832 §8.2.1).
    case unknownMessageType(UInt8)
    /// The channel type is none of the six of RFC 8832 §5.1.
    case unknownChannelType(UInt8)
    /// The label or protocol is not UTF-8 (RFC 8832 §5.1).
    case invalidText
}
