import RTCNet

/// Receives a `PeerTransport`'s packets and state changes.
///
/// Every method is called on the transport's I/O thread, synchronously, one at a time; none may
/// block. Packet buffers are decrypted in place in the receive buffer and are valid only during
/// the call: copy what must outlive it. A handler may send on any transport of the same I/O
/// thread (the same `MediaPort`, or the client transport itself) directly.
public protocol PeerTransportDelegate: AnyObject {
    /// The transport's state changed.
    func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State)
    /// A decrypted RTP packet arrived.
    func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer)
    /// An RTP packet arrived that was not decrypted (`PeerTransportParameters.rtpDecryptionInterval`):
    /// its header as sent, its payload still encrypted, the SRTP tag cut off.
    func peerTransport(_ transport: PeerTransport, didReceiveProtectedRTP packet: UnsafeMutableRawBufferPointer)
    /// A decrypted RTCP compound packet arrived.
    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer)
    /// An RTP packet SRTP refused as a replay (RFC 3711 §3.3.2): a resent copy of a packet that
    /// did arrive (the sender resends with the same SSRC and sequence number: no RTX). Its header
    /// as sent, not authenticated (libsrtp checks the replay list first), the payload encrypted:
    /// for transport-wide feedback only, whose number the copy has anew.
    func peerTransport(_ transport: PeerTransport, didReceiveReplayedRTP packet: UnsafeRawBufferPointer)
    /// Something happened on the transport's data channels (only with `parameters.sctp`).
    func peerTransport(_ transport: PeerTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event)
    /// ICE moved media to another peer address (`previous` was in use): the peer changed
    /// networks, and what was sent meanwhile went to the old one. Also the first path an ICE
    /// restart selects when it is the same address (`address == previous`): the peer restarted
    /// because its path broke (a link down for a while), and what was sent meanwhile was lost.
    func peerTransport(_ transport: PeerTransport, didMoveTo address: SocketAddress, from previous: SocketAddress)
}

extension PeerTransportDelegate {
    /// Only receivers that send transport-wide feedback need replayed packets.
    public func peerTransport(_ transport: PeerTransport, didReceiveReplayedRTP packet: UnsafeRawBufferPointer) {}
    /// Only transports that sample decryption see undecrypted packets.
    public func peerTransport(_ transport: PeerTransport, didReceiveProtectedRTP packet: UnsafeMutableRawBufferPointer) {}
    /// Transports without data channels need not implement it.
    public func peerTransport(_ transport: PeerTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {}
    /// Owners that keep nothing per path need not implement it.
    public func peerTransport(_ transport: PeerTransport, didMoveTo address: SocketAddress, from previous: SocketAddress) {}
}

/// What the owner of the socket (a `MediaPort`, or nothing for a client) learns from a transport.
protocol PeerTransportHost: AnyObject {
    /// Media from and to `transport` now uses `address` (`previous` is no longer its address).
    func peerTransport(_ transport: PeerTransport, didSelect address: SocketAddress, previous: SocketAddress?)
    /// The transport closed or failed; forget it.
    func peerTransportDidFinish(_ transport: PeerTransport)
    /// An ICE restart gave the transport new local credentials: route checks by `ufrag` now.
    func peerTransport(_ transport: PeerTransport, didChangeLocalUfrag ufrag: String, previous: String)
}
