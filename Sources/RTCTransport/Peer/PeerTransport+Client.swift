import RTCNet
import RTCWire

extension PeerTransport {
    /// A client transport with its own UDP socket and I/O thread (SDK clients, tests): usually
    /// ICE controlling and DTLS client. It starts checking at once. With
    /// `parameters.sharedLoops` the socket is served by one of those threads instead.
    /// - Parameters:
    ///   - bind: the local address; port 0 picks one. Use an address of the same family as the
    ///     server's candidates.
    ///   - delegate: set before any packet can arrive.
    public static func client(_ parameters: PeerTransportParameters, bind: SocketAddress,
                              delegate: PeerTransportDelegate?) throws -> PeerTransport {
        let socket = try UDPSocket(bind: bind)
        let loop = try UDPReceiveLoop(socket: socket, batchSize: 16, sendQueueCapacity: 32,
                                      tickInterval: parameters.clientTickInterval, sharedBy: parameters.sharedLoops)
        let transport = try PeerTransport(parameters: parameters, io: loop)
        transport.delegate = delegate
        transport.ownsLoop = true
        let relayServer = parameters.turnServer?.address
        loop.onDatagram = { [weak transport] bytes, source in
            guard let transport else { return }
            let kind = PacketKind.classify(UnsafeRawBufferPointer(bytes))
            if source == relayServer, transport.receiveFromRelay(bytes, kind: kind) { return }
            transport.receive(bytes, from: source, kind: kind, stun: nil)
        }
        loop.onTick = { [weak transport] now in transport?.tick(now: now) }
        loop.start(name: "srtc-peer")
        loop.execute { [weak transport] in transport?.start(now: .now) }
        return transport
    }

    /// The local address of the socket (the client's host candidate when bound to a specific address).
    public var localAddress: SocketAddress { io.socket.localAddress }

    /// Host candidates to announce for this transport's socket.
    public var localCandidates: [ICECandidate] {
        ICECandidate.hostCandidates(for: io.socket.localAddress, includeLoopback: io.socket.localAddress.isLoopback)
    }
}
