/// Data channel setup from the SDP's `m=application … UDP/DTLS/SCTP webrtc-datachannel` section
/// (RFC 8841): the SCTP ports of both sides and the largest message the peer accepts.
public struct SCTPParameters: Sendable, Equatable {
    public var localPort: UInt16
    public var remotePort: UInt16
    /// The peer's `a=max-message-size` (RFC 8841 §6; 64 KiB when absent, 0 meaning "any").
    public var remoteMaxMessageSize: Int

    public init(localPort: UInt16 = SCTPAssociation.defaultPort, remotePort: UInt16 = SCTPAssociation.defaultPort,
                remoteMaxMessageSize: Int = 65_536) {
        self.localPort = localPort
        self.remotePort = remotePort
        self.remoteMaxMessageSize = remoteMaxMessageSize == 0 ? SCTPAssociation.maxMessageSize : remoteMaxMessageSize
    }
}
