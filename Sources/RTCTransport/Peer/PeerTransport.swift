import RTCNet
import RTCWire
import Synchronization

/// One WebRTC media transport: ICE (lite or controlling) + DTLS + SRTP on one 5-tuple, carrying
/// RTP and RTCP with BUNDLE and rtcp-mux.
///
/// **Threading contract.** A transport lives on one I/O thread: its `MediaPort`'s (server) or its
/// own socket's (client, `PeerTransport.client`). Packets arrive, state changes are reported
/// and timers run on that thread, through the delegate, synchronously. `sendRTP` / `sendRTCP`
/// must be called on that thread — typically from inside a delegate callback (the SFU forwarding
/// path: receive → unprotect → callback → protect into the send queue → one `sendmmsg` per batch),
/// with no allocation and no `await`. Other threads hand work over with `execute(_:)`. `state`,
/// `close()` and `execute(_:)` are safe from any thread.
// @unchecked Sendable: ICE, DTLS, SRTP and every `var` live on `io`'s thread; `state` from other threads is read through `sharedState` (Mutex), the rest goes through `execute`.
public final class PeerTransport: @unchecked Sendable {
    /// The transport's life cycle.
    public enum State: Sendable, Equatable {
        case new, checking, connected, failed, closed
    }

    public let parameters: PeerTransportParameters
    /// Receives packets and state changes on the I/O thread.
    public weak var delegate: PeerTransportDelegate?
    /// A value for the owner (for example the SFU's participant id); not used by the transport.
    public var userInfo: AnyObject?

    /// The current state (readable from any thread).
    public var state: State { sharedState.withLock { $0 } }

    /// Where media goes: the ICE-selected remote address.
    // This and the other state `sendRTP` reads for every forwarded copy (`srtp`, `currentState`,
    // `selectedStream`, `relayChannel`, `stats`) are I/O-thread only and never passed `inout`
    // across a call that could reach them again: declared without the dynamic exclusivity check,
    // a runtime call per access (four per copy; docs/benchmarks.md, "fifth profile").
    @exclusivity(unchecked) public internal(set) var remoteAddress: SocketAddress?
    /// The negotiated SRTP profile, once connected.
    public internal(set) var srtpProfile: SRTPProfile?
    /// Counters, for stats and tests (I/O thread).
    @exclusivity(unchecked) public internal(set) var stats = Stats()
    /// The local ICE credentials in force; an ICE restart replaces them (I/O thread).
    public private(set) var localICE: ICECredentials

    /// Packet counters.
    public struct Stats: Sendable {
        public var rtpReceived = 0, rtcpReceived = 0, rtpSent = 0, rtcpSent = 0
        /// Unprotect failures: forged, corrupt or replayed packets.
        public var unprotectFailures = 0
        public var sendFailures = 0
        /// ChannelData datagrams (checks, DTLS, SRTP) sent to and received from the TURN relay.
        public var relayedSent = 0, relayedReceived = 0
    }

    let io: UDPReceiveLoop
    weak var host: PeerTransportHost?
    var ice: ICEMachine
    let dtls: DTLSEndpoint
    @exclusivity(unchecked) var srtp: SRTPContext? {
        didSet { srtpRef = srtp.map { Unmanaged.passUnretained($0) } }
    }
    /// `srtp` without a reference count, for the send path: a strong local of it was a retain
    /// and a release per packet sent. `srtp` holds the context; both change together, on the I/O
    /// thread only, and never while a packet is being written or protected.
    @exclusivity(unchecked) private var srtpRef: Unmanaged<SRTPContext>?
    let sharedState = Mutex<State>(.new)
    @exclusivity(unchecked) var currentState: State = .new
    var deadline: ContinuousClock.Instant?
    /// When an ICE-lite machine's timer next needs a look (see `tick`).
    var nextLiteTick: ContinuousClock.Instant?
    /// The ICE-lite machine's consent deadline as of its last look (`ICELiteResponder.consentDeadline`).
    var liteConsentDeadline: ContinuousClock.Instant?
    /// The silence watch of a controlling (client) transport, I/O thread: packets received as of
    /// the last tick, when that count last grew, and whether this silence had its check.
    var silenceWatch = SilenceWatch()
    /// Until when `tick` has nothing to do (`Monotonic.now()`, ns), for a connected ICE-lite
    /// transport with no other timer running; 0: look on every tick. The port skips the transport
    /// until then; what could give it work sooner clears it (`setState`, a STUN or DTLS datagram,
    /// an ICE restart). An integer: reading an optional `ContinuousClock.Instant` (a resilient
    /// type) for every transport on every tick went through value witnesses, 1 % of the thread.
    var quietUntil: UInt64 = 0
    /// `parameters.rtpDecryptionInterval`, and how many RTP packets pass undecrypted before the
    /// next one is unprotected (I/O thread).
    let rtpDecryptionInterval: Int
    var rtpUntilDecryption = 0
    var started = false
    /// An ICE restart is under way after a recoverable ICE failure (DTLS and SRTP kept).
    var restarting = false
    /// An ICE restart's checks have not selected a path yet: the first one they select is
    /// reported as a move even at the same address (`didMoveTo`), since a peer restarts ICE after
    /// losing its path, and what was sent meanwhile was lost (I/O thread).
    var awaitingRestartedPath = false
    /// An ICE restart kept an established association (server role): a ClientHello at epoch 0
    /// from the restarted path may begin a new one (the peer made a new connection, RFC 6347
    /// §4.2.8). Cleared when one begins (I/O thread).
    var associationRenewable = false
    /// A new association is handshaking in place of the established one; media keeps the old
    /// keys until it completes (I/O thread).
    var renewingAssociation = false
    /// `true` for a client transport: closing also stops its I/O thread.
    var ownsLoop = false
    /// Made before the peer's SDP: DTLS waits here until `completeNegotiation` (bounded).
    var awaitingRemote: Bool
    var heldDTLS: [[UInt8]] = []
    /// The data channels, when the parameters ask for SCTP (I/O thread).
    public internal(set) var dataChannels: DataChannelEndpoint?
    /// The ICE-TCP connection media uses, when ICE selected one (RFC 6544); `nil` for UDP.
    @exclusivity(unchecked) public internal(set) var selectedStream: ICETCPConnection?
    /// The ICE-TCP connection the packet being handled came on (I/O thread, during `receive`).
    var inboundStream: ICETCPConnection?
    /// A client's active ICE-TCP connections, by the passive candidate they go to.
    var clientStreams: [SocketAddress: ICETCPConnection] = [:]
    /// A client's TURN allocation (RFC 8656), when `parameters.turnServer` is set.
    var turn: TURNClient?
    /// The TURN channel media uses, when ICE selected the relayed pair.
    @exclusivity(unchecked) public internal(set) var relayChannel: UInt16?
    /// The packet being handled came through the relay (I/O thread, during `receive`).
    var inboundRelayed = false
    /// Checks waiting for their peer's channel to be bound (bounded).
    var pendingRelay: [(peer: SocketAddress, bytes: [UInt8])] = []

    /// The two ICE roles behind one interface.
    enum ICEMachine {
        case lite(ICELiteResponder)
        case controlling(ICEControllingAgent)
    }

    init(parameters: PeerTransportParameters, io: UDPReceiveLoop) throws(DTLSError) {
        self.parameters = parameters
        rtpDecryptionInterval = max(1, parameters.rtpDecryptionInterval)
        self.io = io
        localICE = parameters.localICE
        awaitingRemote = parameters.remoteFingerprint == nil
        switch parameters.iceRole {
        case .lite:
            ice = .lite(ICELiteResponder(local: parameters.localICE, remote: parameters.remoteICE))
        case .controlling:
            precondition(parameters.remoteICE != nil, "a controlling agent needs the peer's credentials")
            ice = .controlling(ICEControllingAgent(local: parameters.localICE, remote: parameters.remoteICE!,
                                                   remoteCandidates: parameters.remoteCandidates,
                                                   localFamily: io.socket.localAddress.family,
                                                   relay: parameters.turnServer != nil,
                                                   relayOnly: parameters.relayOnly && parameters.turnServer != nil))
            turn = parameters.turnServer.map { TURNClient(server: $0) }
        }
        dtls = try DTLSEndpoint(role: parameters.dtlsRole, certificate: parameters.certificate,
                                remoteFingerprint: parameters.remoteFingerprint, profiles: parameters.srtpProfiles)
    }

    deinit {
        if ownsLoop { io.stop() }
    }

    // MARK: - Public API

    /// Runs `work` on this transport's I/O thread (inline when already there). Thread-safe.
    public func execute(_ work: @escaping @Sendable (PeerTransport) -> Void) {
        io.execute { [self] in work(self) }
    }

    /// Sends close_notify, stops, and reports `.closed`. Thread-safe; idempotent.
    public func close() {
        io.execute { [self] in closeOnIOThread() }
        if ownsLoop { io.stop() }
    }

    /// Protects `packet` (plain RTP) into the send queue, to go out at the end of the batch.
    /// I/O thread only. Returns `false` when not connected or the packet does not fit.
    @discardableResult
    public func sendRTP(_ packet: UnsafeRawBufferPointer) -> Bool {
        sendRTP { slot in
            guard packet.count <= slot.count else { return nil }
            slot.copyMemory(from: packet)
            return packet.count
        }
    }

    /// Lets `write` put plain RTP straight into a send slot (for example a forwarded packet with
    /// its SSRC and sequence number rewritten), then protects it there. `write` returns the
    /// packet's length or `nil` to cancel. I/O thread only.
    @discardableResult
    public func sendRTP(_ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        send(rtcp: false, stamp: 0, write)
    }

    /// `sendRTP(_:)` for a packet caused by one that arrived at `arrival`
    /// (`Monotonic.microseconds()`): on the UDP path the port's send queue times it from then to
    /// the kernel taking it (`MediaPort.sendLatency`).
    @discardableResult
    public func sendRTP(stampedAt arrival: Int64, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        send(rtcp: false, stamp: arrival, write)
    }

    /// Protects `packet` (a plain RTCP compound packet) into the send queue. I/O thread only.
    @discardableResult
    public func sendRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        send(rtcp: true, stamp: 0) { slot in
            guard packet.count <= slot.count else { return nil }
            slot.copyMemory(from: packet)
            return packet.count
        }
    }

    /// ICE restart (RFC 8445 §9): new credentials on both sides (and, for a controlling agent, new
    /// remote candidates) with DTLS and SRTP kept. Media keeps using the current pair until the
    /// new checks nominate one, which may be a new address (a changed network path).
    /// A transport whose DTLS never completed has no association to keep: its handshake starts
    /// over (the peer sends a new ClientHello, RFC 6347 §4.2), and one that had failed comes back
    /// to `.checking` with a new connect deadline and its data channels waiting again. Thread-safe.
    public func restartICE(local: ICECredentials, remote: ICECredentials, remoteCandidates: [ICECandidate] = []) {
        execute { transport in transport.restartOnIOThread(local: local, remote: remote, remoteCandidates: remoteCandidates) }
    }

    private func restartOnIOThread(local: ICECredentials, remote: ICECredentials, remoteCandidates: [ICECandidate]) {
        // A transport whose ICE failed after DTLS came up keeps its SRTP keys and can come back;
        // one whose DTLS never completed starts DTLS over. One that failed with its association
        // up but its keys dropped (a restart that timed out) cannot.
        let redoDTLS = srtp == nil && dtls.state != .connected
        guard currentState != .closed, currentState != .failed || srtp != nil || redoDTLS else { return }
        quietUntil = 0
        let previous = localICE.ufrag
        let wasFailed = currentState == .failed
        localICE = local
        let now = ContinuousClock.now
        if redoDTLS {
            restarting = false
            dtls.restart()
            heldDTLS = []
            deadline = now + parameters.connectTimeout
            renewDataChannels()
            if wasFailed { setState(.checking) }
        } else if wasFailed {
            restarting = true
            deadline = now + parameters.connectTimeout
        }
        if !redoDTLS, dtls.role == .server, dtls.state == .connected { associationRenewable = true }
        // A failed transport is no longer routed (`peerTransportDidFinish`): route it again. Its
        // address comes back when ICE selects one.
        if previous != local.ufrag { awaitingRestartedPath = true }
        if wasFailed || previous != local.ufrag { host?.peerTransport(self, didChangeLocalUfrag: local.ufrag, previous: previous) }
        switch ice {
        case .lite:
            ice = .lite(ICELiteResponder(local: local, remote: remote))
        case .controlling:
            revalidateRelay(now: now)
            var agent = ICEControllingAgent(local: local, remote: remote,
                                            remoteCandidates: remoteCandidates.isEmpty ? parameters.remoteCandidates : remoteCandidates,
                                            localFamily: io.socket.localAddress.family, relay: turn != nil,
                                            relayOnly: parameters.relayOnly && turn != nil)
            let actions = agent.start(now: now)
            ice = .controlling(agent)
            perform(actions, now: now)
        }
    }

    /// Completes a transport made with `PeerTransportParameters.awaitingAnswer`: the peer's ICE
    /// credentials and certificate fingerprint from its answer. DTLS datagrams that arrived
    /// meanwhile are handled now. Thread-safe.
    public func completeNegotiation(remoteICE: ICECredentials, remoteFingerprint: DTLSFingerprint) {
        execute { transport in transport.completeOnIOThread(remoteICE: remoteICE, remoteFingerprint: remoteFingerprint) }
    }

    private func completeOnIOThread(remoteICE: ICECredentials, remoteFingerprint: DTLSFingerprint) {
        quietUntil = 0
        if case .lite(var lite) = ice {
            lite.remote = remoteICE
            ice = .lite(lite)
        }
        dtls.expect(remoteFingerprint)
        guard awaitingRemote else { return }
        awaitingRemote = false
        let held = heldDTLS
        heldDTLS = []
        for datagram in held where currentState != .closed && currentState != .failed {
            handleDTLS(datagram.withUnsafeBytes { dtls.handle($0) })
        }
    }

    /// Sends everything queued now instead of at the end of the batch. I/O thread only.
    public func flush() {
        io.sendQueue.flush(on: io.socket)
    }

    // MARK: - Sending internals

    @inline(__always)
    private func send(rtcp: Bool, stamp: Int64, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        guard let srtpRef, let to = remoteAddress, currentState == .connected else { return false }
        return srtpRef._withUnsafeGuaranteedRef { srtp in send(rtcp: rtcp, stamp: stamp, to: to, srtp: srtp, write) }
    }

    @inline(__always)
    private func send(rtcp: Bool, stamp: Int64, to: SocketAddress, srtp: SRTPContext,
                      _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        let overhead = rtcp ? srtp.profile.rtcpOverhead : srtp.profile.rtpOverhead
        func protect(_ slot: UnsafeMutableRawBufferPointer) -> Int? {
            let room = UnsafeMutableRawBufferPointer(rebasing: slot[0..<(slot.count - overhead)])
            guard let length = write(room), length > 0 else { return nil }
            do throws(SRTPError) {
                return rtcp ? try srtp.protectRTCP(slot, length: length) : try srtp.protectRTP(slot, length: length)
            } catch {
                return nil
            }
        }
        let queued: Bool
        if let stream = selectedStream {
            queued = stream.send(protect)
        } else if let channel = relayChannel, let server = turn?.server.address {
            queued = sendRelayed(on: channel, to: server, protect)
        } else {
            queued = io.send(to: to, stamp: stamp, protect)
        }
        if queued {
            if rtcp { stats.rtcpSent += 1 } else { stats.rtpSent += 1 }
        } else {
            stats.sendFailures += 1
        }
        return queued
    }

    /// Sends control datagrams (DTLS) on the selected path.
    func sendControl(_ datagrams: [[UInt8]], to address: SocketAddress?) {
        guard let address else { return }
        for d in datagrams {
            d.withUnsafeBytes { bytes in
                if let stream = selectedStream {
                    stream.send(bytes)
                } else if let channel = relayChannel, let server = turn?.server.address {
                    _ = sendRelayed(on: channel, to: server) { room in
                        guard bytes.count <= room.count else { return nil }
                        room.copyMemory(from: bytes)
                        return bytes.count
                    }
                } else {
                    io.send(bytes, to: address)
                }
            }
        }
    }
}
