import RTCNet
import RTCWire

/// ICE-TCP on the media port (RFC 6544): a listening socket for the passive TCP candidate,
/// polled by the port's I/O thread beside the UDP socket. Each accepted connection carries
/// RFC 4571-framed packets. A Binding request is routed by its USERNAME like a UDP one and ties
/// the connection to that transport; every other packet on the connection goes to its transport,
/// which accepts DTLS and media only on the connection ICE selected.
extension MediaPort {
    /// Connections at once; more are accepted and closed at once (a flood cannot take the descriptors).
    public static let maxTCPConnections = 4096
    /// A connection that has not sent a Binding request for a known ufrag within this time is closed.
    public static let tcpUnboundTimeout: Duration = .seconds(10)

    /// The number of open ICE-TCP connections (I/O thread).
    public var tcpConnectionCount: Int { tcpConnections.count }

    func startAccepting(_ listener: TCPSocket) {
        tcpListener = listener
        loop.watch(listener.descriptor, read: true, write: false) { [weak self] _ in self?.acceptConnections() }
    }

    func stopAccepting() {
        if let listener = tcpListener {
            loop.unwatch(listener.descriptor)
            listener.close()
            tcpListener = nil
        }
        for connection in Array(tcpConnections.values) { connection.close() }
    }

    private func acceptConnections() {
        guard let listener = tcpListener else { return }
        // A bounded batch per wakeup; level-triggered polling brings us back for the rest.
        for _ in 0..<32 {
            guard let accepted = try? listener.accept() else { return }
            guard tcpConnections.count < Self.maxTCPConnections else {
                accepted.close()
                continue
            }
            let connection = ICETCPConnection(socket: accepted, connecting: false, loop: loop)
            connection.onPacket = { [weak self] connection, packet in self?.route(packet, via: connection) }
            connection.onClose = { [weak self] connection in self?.tcpConnections[ObjectIdentifier(connection)] = nil }
            tcpConnections[ObjectIdentifier(connection)] = connection
        }
    }

    /// Routes one packet read from an ICE-TCP connection.
    private func route(_ packet: UnsafeMutableRawBufferPointer, via connection: ICETCPConnection) {
        let kind = PacketKind.classify(UnsafeRawBufferPointer(packet))
        if kind == .stun {
            guard let message = try? STUNMessage(parsing: UnsafeRawBufferPointer(packet)) else { return countUnrouted() }
            if let transport = transport(forCheck: message) {
                if connection.transport == nil { connection.transport = transport }
                guard connection.transport === transport else { return countUnrouted() }
                transport.receive(packet, from: connection.remoteAddress, kind: kind, stun: message, via: connection)
                return
            }
            guard message.type != .bindingRequest, let transport = connection.transport else { return countUnrouted() }
            transport.receive(packet, from: connection.remoteAddress, kind: kind, stun: message, via: connection)
            return
        }
        guard let transport = connection.transport else { return countUnrouted() }
        transport.receive(packet, from: connection.remoteAddress, kind: kind, stun: nil, via: connection)
    }

    /// Closes connections that never routed a check in time.
    func closeIdleConnections(now: ContinuousClock.Instant) {
        for connection in tcpConnections.values where connection.transport == nil && now - connection.openedAt > Self.tcpUnboundTimeout {
            connection.close()
        }
    }

    /// A transport finished: its connections go with it.
    func closeConnections(of transport: PeerTransport) {
        for connection in tcpConnections.values where connection.transport === transport { connection.close() }
    }
}
