import RTCNet
import RTCWire

/// The server's ICE-lite agent (RFC 8445 §2.5): it never sends checks; it answers the peer's
/// Binding requests and follows the peer's nomination. It is always in the controlled role.
///
/// - A valid check (right USERNAME `localUfrag:remoteUfrag`, MESSAGE-INTEGRITY under our password)
///   gets a success response with XOR-MAPPED-ADDRESS (RFC 8445 §7.3).
/// - USE-CANDIDATE nominates the check's source as the media address; a valid nominating check
///   from another address moves the selection there (the peer's address changed).
/// - Until a nomination, the first valid check's source is used provisionally, so early DTLS and
///   media have a destination.
/// - With no valid check for `consentTimeout` the agent fails: browsers refresh consent every few
///   seconds (RFC 7675 §5.1), so silence means the peer is gone.
public struct ICELiteResponder: Sendable {
    public let local: ICECredentials
    /// The peer's credentials from its SDP; only the ufrag is needed to check USERNAME.
    public var remote: ICECredentials?
    public private(set) var state: ICEState = .new
    /// Where media goes; `nil` until the first valid check.
    public private(set) var selectedAddress: SocketAddress?
    /// `true` once the peer nominated `selectedAddress` with USE-CANDIDATE.
    public private(set) var isNominated = false
    public var consentTimeout: Duration = .seconds(30)
    private var lastValidCheck: ContinuousClock.Instant?

    public init(local: ICECredentials, remote: ICECredentials?) {
        self.local = local
        self.remote = remote
    }

    /// The USERNAME a valid check carries: our ufrag, a colon, the peer's (RFC 8445 §7.2.2).
    public var expectedUsername: String { "\(local.ufrag):\(remote?.ufrag ?? "")" }

    /// Handles a STUN message that arrived from `source`; `raw` are its bytes (for the HMAC).
    public mutating func handle(_ message: STUNMessage, raw: UnsafeRawBufferPointer, from source: SocketAddress,
                                now: ContinuousClock.Instant) -> [ICEAction] {
        guard message.type == .bindingRequest else { return [] } // indications are keep-alives
        guard let username = message.username, usernameMatches(username) else {
            return [reply(.bindingError(to: message, code: 401, reason: "Unauthorized"), to: source, signed: false)]
        }
        guard message.integrityOffset != nil else {
            return [reply(.bindingError(to: message, code: 400, reason: "Bad Request"), to: source, signed: false)]
        }
        do { try message.verifyIntegrity(in: raw, key: local.key) } catch {
            return [reply(.bindingError(to: message, code: 401, reason: "Unauthorized"), to: source, signed: false)]
        }
        if message.iceControlled != nil {
            // Both sides think they are controlled; a lite agent cannot take control (RFC 8445 §6.1.3.1).
            return [reply(.bindingError(to: message, code: 487, reason: "Role Conflict"), to: source, signed: true)]
        }
        lastValidCheck = now
        var actions = [reply(.bindingSuccess(to: message, mappedAddress: source.stunAddress), to: source, signed: true)]
        if message.hasUseCandidate {
            if selectedAddress != source || !isNominated {
                selectedAddress = source
                isNominated = true
                actions.append(.selected(source))
            }
            if state != .connected {
                state = .connected
                actions.append(.stateChanged(.connected))
            }
        } else {
            if selectedAddress == nil {
                selectedAddress = source
                actions.append(.selected(source))
            }
            if state == .new {
                state = .checking
                actions.append(.stateChanged(.checking))
            }
        }
        return actions
    }

    /// When consent expires unless a valid check comes first: before it `tick` has nothing to do
    /// (nil: no consent running).
    public var consentDeadline: ContinuousClock.Instant? {
        guard state == .checking || state == .connected, let last = lastValidCheck else { return nil }
        return last + consentTimeout
    }

    /// Fails the agent when consent expired.
    public mutating func tick(now: ContinuousClock.Instant) -> [ICEAction] {
        guard state == .checking || state == .connected, let last = lastValidCheck, now - last > consentTimeout else { return [] }
        state = .failed
        return [.stateChanged(.failed)]
    }

    private func usernameMatches(_ username: String) -> Bool {
        if remote != nil { return username == expectedUsername }
        return username.hasPrefix(local.ufrag + ":") // remote ufrag not known yet (trickled offer)
    }

    private func reply(_ message: STUNMessage, to address: SocketAddress, signed: Bool) -> ICEAction {
        .send(message.encoded(integrityKey: signed ? local.key : nil, fingerprint: true), to: address)
    }
}
