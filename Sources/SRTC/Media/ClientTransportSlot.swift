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
    /// Held through a whole `follow`.
    private let following = Mutex(())

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
    ///
    /// One call at a time: a subscribe transport's offers are answered in quick succession (a
    /// composite joining subscribes to six tracks at once) and each answer's connect runs in a
    /// task of its own. Two at once both found no transport and each opened one with the same ICE
    /// credentials; the server's DTLS took the first ClientHello, the first transport was then
    /// closed as replaced, and the one kept could never finish its handshake (its ICE restarts
    /// keep DTLS), so that channel received no media at all.
    @discardableResult
    func follow(_ remote: SDPNegotiation.RemoteDescription, localICE: ICECredentials,
                open: () throws(SRTCError) -> ClientTransport) throws(SRTCError) -> Outcome {
        let (outcome, replaced) = try following.withLock { _ throws(SRTCError) -> (Outcome, ClientTransport?) in
            let existing = transport
            if let existing, existing.remote.iceUfrag == remote.iceUfrag, existing.localICE == localICE, existing.state != .failed {
                return (.kept, nil)
            }
            if let existing, existing.canRestart {
                existing.restartICE(localICE: localICE, remote: remote)
                return (.restarted, nil)
            }
            let opened = try open()
            let old = state.withLock { s -> ClientTransport? in
                defer { s.transport = opened }
                return s.transport
            }
            return (.opened, old)
        }
        replaced?.close()
        return outcome
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
