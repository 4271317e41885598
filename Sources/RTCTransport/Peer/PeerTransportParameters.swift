import RTCNet

/// Everything a `PeerTransport` needs from the negotiation, as plain values (no SDP inside the
/// transport): ICE role and credentials, the peer's candidates, the DTLS certificate, the
/// expected peer fingerprint and the DTLS role from `a=setup`, and the SRTP profiles.
public struct PeerTransportParameters: Sendable {
    /// How this side runs ICE.
    public enum ICERole: Sendable {
        /// ICE-lite, controlled: answers checks (the server, RFC 8445 §2.5).
        case lite
        /// Full agent, controlling: sends checks and nominates (SDK clients).
        case controlling
    }

    public var iceRole: ICERole
    public var localICE: ICECredentials
    /// The peer's credentials; `nil` for a lite transport made before the peer's answer (see
    /// `awaitingAnswer`), which answers checks for its ufrag until `completeNegotiation`.
    public var remoteICE: ICECredentials?
    /// The peer's candidates (controlling role; a lite agent learns addresses from checks).
    public var remoteCandidates: [ICECandidate]
    public var certificate: DTLSCertificate
    /// `nil` until the peer's SDP arrived (DTLS datagrams wait for it).
    public var remoteFingerprint: DTLSFingerprint?
    /// `.server` for `a=setup:passive`, `.client` for `a=setup:active` (RFC 5763 §5).
    public var dtlsRole: DTLSEndpoint.Role
    /// In preference order.
    public var srtpProfiles: [SRTPProfile]
    /// The whole setup (ICE and DTLS) must finish within this time, or the transport fails.
    public var connectTimeout: Duration
    /// Data channels (SCTP over the DTLS association) when the SDP has an application section.
    public var sctp: SCTPParameters?
    /// A client's TURN server: it allocates a relay there and checks every UDP candidate through
    /// it too (after the direct pairs).
    public var turnServer: TURNServer?
    /// Only through the relay (`iceTransportPolicy: relay`); needs `turnServer`.
    public var relayOnly = false
    /// Unprotect one RTP packet in this many (1: every one). The others reach
    /// `peerTransport(_:didReceiveProtectedRTP:)` still encrypted: their RTP header is in the clear
    /// (RFC 3711 §3.1), which is all a load generator's counting subscriber reads, so it costs no
    /// AES per packet. The sampled ones keep SRTP's replay window and rollover counter current.
    public var rtpDecryptionInterval = 1
    /// How often a client transport's own I/O loop runs its timers (`PeerTransport.client`). ICE
    /// checks are paced in tens of ms, consent every few seconds (RFC 7675 §5.1) and DTLS
    /// retransmits after a second: a load generator's subscriber, one thread among hundreds,
    /// takes a coarser tick so its wake-ups are its packets'.
    public var clientTickInterval: Duration = .milliseconds(10)
    /// Serve a client transport's socket on one of these shared threads instead of a thread of
    /// its own (`PeerTransport.client`): for a load generator's hundreds of transports, where a
    /// thread each meant hundreds of threads and wake-ups. `nil` (the SDK): a thread of its own.
    public var sharedLoops: SharedUDPLoops?
    /// Once connected (ICE and DTLS done), read the socket on its shared thread's sweep timer
    /// instead of when readable (`UDPReceiveLoop.sweep()`; needs `sharedLoops`): a load
    /// generator's counting subscriber, whose datagrams then cost no wake-up each and are read
    /// many per `recvmmsg`. Media waits up to `SharedUDPLoops`'s `sweepInterval` in the socket.
    public var sweepWhenConnected = false

    public init(iceRole: ICERole, localICE: ICECredentials, remoteICE: ICECredentials?,
                remoteCandidates: [ICECandidate] = [], certificate: DTLSCertificate,
                remoteFingerprint: DTLSFingerprint?, dtlsRole: DTLSEndpoint.Role,
                srtpProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMSHA1_80],
                connectTimeout: Duration = .seconds(30), sctp: SCTPParameters? = nil) {
        self.iceRole = iceRole
        self.localICE = localICE
        self.remoteICE = remoteICE
        self.remoteCandidates = remoteCandidates
        self.certificate = certificate
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.srtpProfiles = srtpProfiles
        self.connectTimeout = connectTimeout
        self.sctp = sctp
    }

    /// An ICE-lite transport for an offer we sent, made before the answer so the peer's first
    /// checks are answered at once (RFC 8445 §7.3: our offer already fixed our ufrag and
    /// password). It assumes the peer answers `a=setup:active` (we are the DTLS server), as
    /// browsers do; finish it with `PeerTransport.completeNegotiation`.
    public static func awaitingAnswer(localICE: ICECredentials, certificate: DTLSCertificate,
                                      sctp: SCTPParameters? = nil) -> PeerTransportParameters {
        PeerTransportParameters(iceRole: .lite, localICE: localICE, remoteICE: nil, certificate: certificate,
                                remoteFingerprint: nil, dtlsRole: .server, sctp: sctp)
    }
}
