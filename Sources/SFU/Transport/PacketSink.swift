/// Where a transport's outgoing packets go: a `PeerTransport` (which SRTP-protects into its port's
/// send queue) for a peer or another node, a `PipeSink` (an in-process pipe to another worker)
/// for a channel that spans workers, a recorder in tests. I/O thread only.
protocol PacketSink: AnyObject {
    /// Lets `write` put one plain RTP packet into a send slot; returns false when it was not queued.
    /// `arrival` (`MediaClock.now()`) is when the packet it forwards arrived: the port times each
    /// copy from then to the kernel taking it (the forwarding latency `/metrics` shows).
    @discardableResult
    func sendRTP(stampedAt arrival: Int64, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool
    /// Queues one plain RTCP compound packet.
    @discardableResult
    func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool
    /// Sends one user data packet (docs/protocol.md, "Data messages") on data channel `channel`;
    /// `false` when it cannot (no data channels, closed, too large).
    func sendUserData(_ packet: UnsafeRawBufferPointer, on channel: UInt16) -> Bool
}

extension PacketSink {
    func sendUserData(_ packet: UnsafeRawBufferPointer, on channel: UInt16) -> Bool { false }
}
