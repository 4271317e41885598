import RTCNet
import RTCWire

// Bridges between the transport's types and RTCWire's SDP model, so callers that negotiate with
// `SessionDescription` hand plain values to `PeerTransportParameters` in one step.

extension ICECandidate {
    /// The transport's view of an SDP candidate; `nil` unless it is UDP, or TCP with a known
    /// `tcptype` (RFC 6544 §4.5), with a numeric address (mDNS `.local` names are not resolved).
    public init?(_ candidate: Candidate) {
        var tcpType: TCPType?
        switch candidate.transport.lowercased() {
        case "udp": tcpType = nil
        case "tcp":
            guard let value = candidate.extensionValue("tcptype"), let type = TCPType(rawValue: value.lowercased()) else { return nil }
            tcpType = type
        default: return nil
        }
        guard let address = SocketAddress(ip: candidate.address, port: candidate.port) else { return nil }
        self.init(foundation: candidate.foundation, component: Int(candidate.component), priority: candidate.priority,
                  address: address, type: candidate.kind.rawValue, tcpType: tcpType)
    }

    /// This candidate in RTCWire's SDP model.
    public var sdpCandidate: Candidate {
        Candidate(foundation: foundation, component: UInt16(clamping: component), transport: tcpType == nil ? "udp" : "tcp",
                  priority: priority, address: address.ipString, port: address.port, kind: Candidate.Kind(rawValue: type),
                  extensions: tcpType.map { [("tcptype", $0.rawValue)] } ?? [])
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
