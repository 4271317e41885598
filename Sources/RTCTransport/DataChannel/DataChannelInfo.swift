import RTCWire

/// One data channel on an SCTP association: its stream id and the parameters of its
/// DATA_CHANNEL_OPEN (or of the out-of-band agreement for a negotiated channel, RFC 8831 §6.5).
public struct DataChannelInfo: Sendable, Equatable {
    /// The SCTP stream id, the same in both directions (RFC 8831 §6.5).
    public var id: UInt16
    public var label: String
    public var `protocol`: String
    public var reliability: DataChannelReliability
    /// Agreed out of band (no DCEP exchange).
    public var negotiated: Bool

    public init(id: UInt16, label: String, protocol: String = "", reliability: DataChannelReliability = .reliable,
                negotiated: Bool = false) {
        self.id = id
        self.label = label
        self.protocol = `protocol`
        self.reliability = reliability
        self.negotiated = negotiated
    }
}
