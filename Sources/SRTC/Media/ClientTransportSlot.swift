import RTCTransport
import Synchronization

/// The transport of one media session (publish or subscribe) and the local ICE credentials its
/// next description carries. Both sessions follow the server's descriptions the same way: the
/// transport in place is kept while the server's ICE ufrag and ours are unchanged, ICE-restarted
/// (RFC 8445 §9: DTLS and SRTP kept) when they changed, and replaced when it cannot restart.
final class ClientTransportSlot: Sendable {
    /// What `follow` did with the transport.
    enum Outcome: Equatable {
        case kept, restarted, opened
    }

    private let state = Mutex<(localICE: ICECredentials, transport: ClientTransport?)>((ICECredentials.random(), nil))

    /// The credentials of the next description.
    var localICE: ICECredentials { state.withLock { $0.localICE } }

    var transport: ClientTransport? { state.withLock { $0.transport } }

    /// Fresh local ICE credentials, used from the next description on (ICE restart); returns the
    /// old ones, to put back with `restoreICE` when the server refuses the restart.
    @discardableResult
    func restartICE() -> ICECredentials {
        state.withLock { s in
            defer { s.localICE = ICECredentials.random() }
            return s.localICE
        }
    }

    func restoreICE(_ credentials: ICECredentials) {
        state.withLock { $0.localICE = credentials }
    }

    /// Brings the transport in line with `remote`, negotiated with `localICE`; `open` makes a new
    /// transport when one is needed (the old one is closed once the new one is in place).
    @discardableResult
    func follow(_ remote: SDPNegotiation.RemoteDescription, localICE: ICECredentials,
                open: () throws(SRTCError) -> ClientTransport) throws(SRTCError) -> Outcome {
        let existing = transport
        if let existing, existing.remote.iceUfrag == remote.iceUfrag, existing.localICE == localICE, existing.state != .failed {
            return .kept
        }
        if let existing, existing.canRestart {
            existing.restartICE(localICE: localICE, remote: remote)
            return .restarted
        }
        let opened = try open()
        let old = state.withLock { s -> ClientTransport? in
            defer { s.transport = opened }
            return s.transport
        }
        old?.close()
        return .opened
    }

    /// Closes the transport; the slot is empty afterwards.
    func close() {
        let old = state.withLock { s -> ClientTransport? in
            defer { s.transport = nil }
            return s.transport
        }
        old?.close()
    }
}
