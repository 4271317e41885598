/// A Data Channel Establishment Protocol message (RFC 8832 §5), carried with PPID 50 on the
/// stream of the channel it opens.
public enum DataChannelMessage: Sendable, Equatable {
    /// DATA_CHANNEL_OPEN: the opener's channel parameters (RFC 8832 §5.1).
    case open(DataChannelOpen)
    /// DATA_CHANNEL_ACK: the channel is open at the other side too (RFC 8832 §5.2).
    case ack

    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02

    /// Parses one DCEP message. Never reads past `bytes`.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(DataChannelError) {
        guard let type = bytes.first else { throw .truncated }
        switch type {
        case Self.ackType:
            self = .ack
        case Self.openType:
            self = .open(try DataChannelOpen(parsing: bytes))
        default:
            throw .unknownMessageType(type)
        }
    }

    /// `init(parsing:)` for an array.
    public init(parsing bytes: [UInt8]) throws(DataChannelError) {
        let parsed: Result<DataChannelMessage, DataChannelError> = bytes.withUnsafeBytes { raw in
            Result { () throws(DataChannelError) in try DataChannelMessage(parsing: raw) }
        }
        self = try parsed.get()
    }

    /// The message's bytes.
    public func serialized() -> [UInt8] {
        switch self {
        case .ack: return [Self.ackType]
        case .open(let open): return open.serialized()
        }
    }
}

/// DATA_CHANNEL_OPEN (RFC 8832 §5.1):
///
///     0: message type 0x03 | 1: channel type | 2-3: priority | 4-7: reliability parameter
///     8-9: label length | 10-11: protocol length | 12…: label, then protocol (UTF-8, no padding)
public struct DataChannelOpen: Sendable, Equatable {
    public var reliability: DataChannelReliability
    /// Relative priority (RFC 8832 §5.1; 256 is "normal" in browsers).
    public var priority: UInt16
    public var label: String
    /// The subprotocol (IANA WebSocket subprotocol names, or empty).
    public var `protocol`: String

    public init(reliability: DataChannelReliability = .reliable, priority: UInt16 = 256, label: String, protocol: String = "") {
        self.reliability = reliability
        self.priority = priority
        self.label = label
        self.protocol = `protocol`
    }

    static let fixedLength = 12

    init(parsing bytes: UnsafeRawBufferPointer) throws(DataChannelError) {
        guard bytes.count >= Self.fixedLength else { throw .truncated }
        reliability = try DataChannelReliability(channelType: bytes.u8(1), parameter: bytes.u32(4))
        priority = bytes.u16(2)
        let labelLength = Int(bytes.u16(8)), protocolLength = Int(bytes.u16(10))
        guard bytes.count >= Self.fixedLength + labelLength + protocolLength else { throw .truncated }
        label = try Self.text(bytes, Self.fixedLength, labelLength)
        self.protocol = try Self.text(bytes, Self.fixedLength + labelLength, protocolLength)
    }

    public func serialized() -> [UInt8] {
        let label = Array(label.utf8), proto = Array(self.protocol.utf8)
        let (type, parameter) = reliability.channelType
        var out = [UInt8](repeating: 0, count: Self.fixedLength + label.count + proto.count)
        out.withUnsafeMutableBytes { raw in
            raw.put8(DataChannelMessage.openType, at: 0)
            raw.put8(type, at: 1)
            raw.put16(priority, at: 2)
            raw.put32(parameter, at: 4)
            raw.put16(UInt16(clamping: label.count), at: 8)
            raw.put16(UInt16(clamping: proto.count), at: 10)
        }
        out.replaceSubrange(Self.fixedLength..<(Self.fixedLength + label.count), with: label)
        out.replaceSubrange((Self.fixedLength + label.count)..., with: proto)
        return out
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ length: Int) throws(DataChannelError) -> String {
        guard length > 0 else { return "" }
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self) else {
            throw .invalidText
        }
        return text
    }
}
