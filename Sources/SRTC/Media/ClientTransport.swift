import Foundation
import RTCNet
import RTCTransport
import RTCWire
import Synchronization

/// What a client transport reports to its session, on the transport's I/O thread.
protocol ClientTransportHandler: AnyObject, Sendable {
    func transport(_ transport: ClientTransport, didChangeState state: PeerTransport.State)
    func transport(_ transport: ClientTransport, didReceiveRTP packet: UnsafeRawBufferPointer, on peer: PeerTransport)
    func transport(_ transport: ClientTransport, didReceiveRTCP packet: UnsafeRawBufferPointer, on peer: PeerTransport)
    func transport(_ transport: ClientTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event)
    /// A resent copy of a packet that arrived, refused by SRTP's replay check
    /// (`PeerTransportDelegate.peerTransport(_:didReceiveReplayedRTP:)`): its clear header.
    func transport(_ transport: ClientTransport, didReceiveReplayedRTP packet: UnsafeRawBufferPointer, on peer: PeerTransport)
}

extension ClientTransportHandler {
    /// Sessions that send no transport-wide feedback need not implement it.
    func transport(_ transport: ClientTransport, didReceiveReplayedRTP packet: UnsafeRawBufferPointer, on peer: PeerTransport) {}
    /// Sessions without data channels need not implement it.
    func transport(_ transport: ClientTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {}
}

/// One ICE + DTLS + SRTP session of this client with the server (a publish or subscribe
/// transport for one set of ICE credentials): ICE controlling, DTLS client (unless the remote
/// side asked to be the client), its own UDP socket and I/O thread. An ICE restart keeps it (and
/// its DTLS keys) with new credentials, as browsers do.
// @unchecked Sendable: `handler` (weak, Sendable) is set in init and never reassigned; credentials are in a Mutex, `peer` is Sendable.
final class ClientTransport: PeerTransportDelegate, @unchecked Sendable {
    private let credentials: Mutex<(local: ICECredentials, remote: SDPNegotiation.RemoteDescription)>
    var localICE: ICECredentials { credentials.withLock { $0.local } }
    var remote: SDPNegotiation.RemoteDescription { credentials.withLock { $0.remote } }
    private let peer: PeerTransport
    private weak var handler: (any ClientTransportHandler)?

    /// Connects to the server described by `remote`.
    /// - Parameters:
    ///   - bind: local address (`0.0.0.0` in general); the family follows the server's candidates.
    ///   - dataChannels: channels agreed out of band, created at once (needs `remote.sctpPort`).
    ///   - relay: the channel's TURN relay and ICE transport policy.
    init(localICE: ICECredentials, remote: SDPNegotiation.RemoteDescription, certificate: DTLSCertificate,
         bindAddress: String, relay: MediaRelay, handler: any ClientTransportHandler, dataChannels: [DataChannelInfo] = []) throws(SRTCError) {
        credentials = Mutex((localICE, remote))
        self.handler = handler
        guard !remote.candidates.isEmpty else { throw .mediaFailed("the server offered no ICE candidate") }
        let ipv6 = remote.candidates.allSatisfy { $0.address.family == .ipv6 }
        let bindHost = ipv6 && !bindAddress.contains(":") ? "::" : bindAddress
        guard let bind = SocketAddress(ip: bindHost, port: 0) else { throw .mediaFailed("bad bind address \(bindAddress)") }
        let turnServer = relay.turnServer
        if relay.policy == .relay, turnServer == nil {
            throw .mediaFailed("iceTransportPolicy relay, but the join response offered no TURN server for UDP")
        }
        var parameters = PeerTransportParameters(
            iceRole: .controlling, localICE: localICE,
            remoteICE: ICECredentials(ufrag: remote.iceUfrag, pwd: remote.icePwd),
            remoteCandidates: remote.candidates, certificate: certificate, remoteFingerprint: remote.fingerprint,
            dtlsRole: SDPNegotiation.localDTLSRole(remoteSetup: remote.setup), connectTimeout: .seconds(15),
            sctp: remote.sctpPort.flatMap { dataChannels.isEmpty ? nil : SCTPParameters(remotePort: $0) })
        parameters.turnServer = turnServer.flatMap { $0.address.family == bind.family ? $0 : nil }
        parameters.relayOnly = relay.policy == .relay
        do {
            // The delegate is set inside `client` before any packet can arrive; `self` is
            // complete enough for that (the delegate methods only read `handler`).
            peer = try PeerTransport.client(parameters, bind: bind, delegate: nil)
        } catch {
            throw .mediaFailed("could not open the media socket: \(error)")
        }
        peer.delegate = self
        if parameters.sctp != nil {
            peer.execute { t in
                for c in dataChannels { t.openDataChannel(label: c.label, protocol: c.protocol, reliability: c.reliability, negotiatedID: c.id) }
            }
        }
    }

    deinit {
        peer.close()
    }

    var state: PeerTransport.State { peer.state }
    var localAddress: SocketAddress { peer.localAddress }
    var srtpProfile: SRTPProfile? { peer.srtpProfile }
    /// Packet counters (read off the I/O thread: a snapshot for statistics and tests).
    var stats: PeerTransport.Stats { peer.stats }
    /// The TURN channel media uses, when ICE selected the relayed pair.
    var relayChannel: UInt16? { peer.relayChannel }

    /// The server address this transport's packets go to, when its socket is bound to the wildcard
    /// address and so follows the host's routes (`NetworkPathWatcher`): the first UDP candidate of
    /// the socket's family, the one ICE checks first, or for a relayed-only transport its TURN
    /// server (its restart then checks the allocation, `TURNClient.revalidate`). Nil for a socket
    /// bound to one address (its source cannot move).
    var movableServerAddress: SocketAddress? {
        let local = peer.localAddress
        guard local.high == 0, local.low == 0 else { return nil }
        if peer.parameters.relayOnly { return peer.parameters.turnServer?.address }
        return remote.candidates.first { !$0.isTCP && $0.component == 1 && $0.address.family == local.family }?.address
    }

    /// Runs `work` on the transport's I/O thread (where sending happens).
    func execute(_ work: @escaping @Sendable (PeerTransport) -> Void) {
        peer.execute(work)
    }

    /// Sends an RTCP compound packet (from any thread).
    func sendRTCP(_ packets: [RTCPPacket]) {
        guard !packets.isEmpty else { return }
        let bytes = RTCPCompound.serialize(packets)
        peer.execute { t in
            bytes.withUnsafeBytes { _ = t.sendRTCP($0) }
        }
    }

    func close() {
        peer.close()
    }

    /// ICE restart (RFC 8445 §9) toward `remote`'s new credentials and candidates; DTLS and SRTP stay.
    func restartICE(localICE: ICECredentials, remote: SDPNegotiation.RemoteDescription) {
        credentials.withLock { $0 = (localICE, remote) }
        peer.restartICE(local: localICE, remote: ICECredentials(ufrag: remote.iceUfrag, pwd: remote.icePwd),
                        remoteCandidates: remote.candidates)
    }

    /// `true` when this transport can be restarted in place (not closed, DTLS keys kept).
    var canRestart: Bool { peer.state != .closed && peer.srtpProfile != nil }

    // MARK: - PeerTransportDelegate (I/O thread)

    func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        handler?.transport(self, didChangeState: state)
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        handler?.transport(self, didReceiveRTP: UnsafeRawBufferPointer(packet), on: transport)
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        handler?.transport(self, didReceiveRTCP: UnsafeRawBufferPointer(packet), on: transport)
    }

    func peerTransport(_ transport: PeerTransport, didReceiveReplayedRTP packet: UnsafeRawBufferPointer) {
        handler?.transport(self, didReceiveReplayedRTP: packet, on: transport)
    }

    func peerTransport(_ transport: PeerTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {
        handler?.transport(self, didReceiveDataChannelEvent: event)
    }
}
