import RTCNet
import RTCWire

// Bridges between the transport's types and RTCWire's SDP model, so callers that negotiate with
// `SessionDescription` hand plain values to `PeerTransportParameters` in one step.

extension ICECandidate {
    /// The transport's view of an SDP candidate; `nil` unless it is UDP with a numeric address
    /// (mDNS `.local` names are not resolved).
    public init?(_ candidate: Candidate) {
        guard candidate.transport.lowercased() == "udp",
              let address = SocketAddress(ip: candidate.address, port: candidate.port) else { return nil }
        self.init(foundation: candidate.foundation, component: Int(candidate.component), priority: candidate.priority,
                  address: address, type: candidate.kind.rawValue)
    }

    /// This candidate in RTCWire's SDP model.
    public var sdpCandidate: Candidate {
        Candidate(foundation: foundation, component: UInt16(clamping: component), priority: priority,
                  address: address.ipString, port: address.port, kind: Candidate.Kind(rawValue: type))
    }
}

extension DTLSFingerprint {
    /// The fingerprint of an SDP `a=fingerprint` attribute.
    public init(_ fingerprint: Fingerprint) {
        self.init(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes)
    }

    /// This fingerprint in RTCWire's SDP model.
    public var sdpFingerprint: Fingerprint {
        Fingerprint(algorithm: algorithm, bytes: bytes)
    }
}

extension DTLSEndpoint.Role {
    /// The DTLS role this side takes given its own answer's or offer's `a=setup` (RFC 5763 §5):
    /// `active` starts the handshake (client); `passive` waits (server). `actpass` is only an offer
    /// and resolves by the answer (and `holdconn` holds off), so neither has a role here.
    public init?(localSetup: SetupRole) {
        switch localSetup {
        case .active: self = .client
        case .passive: self = .server
        case .actpass, .holdconn: return nil
        }
    }
}
