import RTCNet
import RTCWire
import RTCCrypto

/// The client's ICE agent in the controlling role (RFC 8445), for talking to our ICE-lite server
/// or any full agent: it checks each remote candidate from its one host socket (UDP candidates),
/// or over a TCP connection it opens to it (passive TCP candidates, from an active candidate of
/// ours, RFC 6544), nominates the first pair that works (a second check with USE-CANDIDATE, RFC 8445 §8.1.1), then keeps consent fresh
/// (RFC 7675): a check every `consentInterval`, failure after `consentTimeout` without an answer.
///
/// Consent checks carry USE-CANDIDATE too, as libwebrtc's checks on its selected pair toward an
/// ICE-lite peer do: when a NAT between us rebinds our port, the next check reaches the server
/// from the new mapping, and an ICE-lite agent moves its media there on a nominating check
/// (`ICELiteResponder`); without it the server kept sending to the old mapping while consent
/// stayed fresh. A full agent sees a nomination of the pair already selected (RFC 8445 §8.1.1).
///
/// Pure state machine: events in (`start`, `handle`, `tick`), actions out.
public struct ICEControllingAgent: Sendable {
    public let local: ICECredentials
    public let remote: ICECredentials
    public let tieBreaker: UInt64
    public private(set) var state: ICEState = .new
    public private(set) var selectedAddress: SocketAddress?

    /// Pacing between first checks of different pairs (Ta, RFC 8445 §14.2).
    public var pacing: Duration = .milliseconds(50)
    /// First retransmission timeout; it doubles up to `maxRetransmitInterval`.
    public var initialRTO: Duration = .milliseconds(200)
    public var maxRetransmitInterval: Duration = .milliseconds(1600)
    /// Transmissions per check before the pair fails (Rc, RFC 8489 §6.2.1).
    public var maxTransmissions = 7
    public var consentInterval: Duration = .seconds(5)
    public var consentTimeout: Duration = .seconds(30)

    private struct Pair: Sendable {
        var remote: SocketAddress
        /// `nil`: directly from our UDP socket.
        var route: ICERoute?
        var firstCheckAt: ContinuousClock.Instant
        var started = false
        var failed = false
        var succeeded = false
    }

    private enum Purpose: Sendable { case check, nomination, consent }

    private struct Transaction: Sendable {
        var pair: Int
        var purpose: Purpose
        var bytes: [UInt8]
        var transmissions: Int
        var nextSend: ContinuousClock.Instant
        var interval: Duration
    }

    private var pairs: [Pair] = []
    private var transactions: [STUNTransactionID: Transaction] = [:]
    private var nominating = false
    private var selectedPair: Int?
    private var lastConsent: ContinuousClock.Instant?
    private var nextConsent: ContinuousClock.Instant?

    /// - Parameters:
    ///   - remoteCandidates: the peer's candidates, checked in priority order (UDP host before
    ///     TCP); those of another address family than `localFamily` (our socket's), and TCP ones
    ///     that do not accept connections (not `passive`), are skipped.
    ///   - relay: also check each UDP candidate through our TURN allocation (after the direct pairs).
    ///   - relayOnly: check through the relay only (`iceTransportPolicy: relay`).
    public init(local: ICECredentials, remote: ICECredentials, remoteCandidates: [ICECandidate],
                localFamily: SocketAddress.Family, relay: Bool = false, relayOnly: Bool = false,
                tieBreaker: UInt64 = SecureRandom.uint64()) {
        self.local = local
        self.remote = remote
        self.tieBreaker = tieBreaker
        let usable = remoteCandidates.filter {
            $0.component == 1 && $0.address.family == localFamily && ($0.tcpType == nil || $0.tcpType == .passive)
        }.sorted { $0.priority > $1.priority }
        var seen = Set<ICECandidate.Path>()
        let now = ContinuousClock.now
        var routes: [(ICECandidate, ICERoute?)] = relayOnly ? [] : usable.map { ($0, $0.isTCP ? .tcp : nil) }
        if relay || relayOnly { routes += usable.filter { !$0.isTCP }.map { ($0, .relay) } }
        for (candidate, route) in routes where seen.insert(ICECandidate.Path(address: candidate.address, route: route)).inserted {
            pairs.append(Pair(remote: candidate.address, route: route, firstCheckAt: now))
        }
    }

    /// Starts checking; the first check goes out at once, the others every `pacing`.
    public mutating func start(now: ContinuousClock.Instant) -> [ICEAction] {
        guard state == .new else { return [] }
        guard !pairs.isEmpty else { state = .failed; return [.stateChanged(.failed)] }
        state = .checking
        for i in pairs.indices { pairs[i].firstCheckAt = now + pacing * i }
        return [.stateChanged(.checking)] + tick(now: now)
    }

    /// Handles a STUN message received from `source`.
    public mutating func handle(_ message: STUNMessage, raw: UnsafeRawBufferPointer, from source: SocketAddress,
                                now: ContinuousClock.Instant) -> [ICEAction] {
        switch message.type {
        case .bindingRequest: return answer(message, raw: raw, from: source)
        case .bindingSuccess, .bindingError: return response(message, raw: raw, from: source, now: now)
        default: return []
        }
    }

    /// Sends due checks and retransmissions, and enforces consent.
    public mutating func tick(now: ContinuousClock.Instant) -> [ICEAction] {
        guard state == .checking || state == .connected else { return [] }
        var actions: [ICEAction] = []
        for i in pairs.indices where !pairs[i].started && pairs[i].firstCheckAt <= now && state == .checking {
            pairs[i].started = true
            actions.append(send(.check, pair: i, now: now))
        }
        for (id, var t) in transactions where t.nextSend <= now {
            if t.transmissions >= maxTransmissions {
                transactions[id] = nil
                if t.purpose != .consent { actions += pairFailed(t.pair, now: now) }
                continue
            }
            t.transmissions += 1
            t.interval = min(t.interval * 2, maxRetransmitInterval)
            t.nextSend = now + t.interval
            transactions[id] = t
            actions.append(sendAction(t.bytes, pair: t.pair))
        }
        if state == .connected, let index = selectedPair {
            if let last = lastConsent, now - last > consentTimeout {
                state = .failed
                transactions.removeAll()
                return actions + [.stateChanged(.failed)]
            }
            if let next = nextConsent, next <= now {
                actions.append(send(.consent, pair: index, now: now))
                // ±20% jitter so many clients do not check in step (RFC 7675 §5.1).
                nextConsent = now + consentInterval * Double.random(in: 0.8...1.2)
            }
        }
        return actions
    }

    /// Sends a consent check now instead of at the next interval (none while one is in flight):
    /// the transport stopped receiving (`PeerTransport`'s silence watch), and a path that a NAT
    /// rebound is taken back by the server at a nominating check (consent checks nominate).
    public mutating func checkConsentNow(now: ContinuousClock.Instant) -> [ICEAction] {
        guard state == .connected, let index = selectedPair, !transactions.values.contains(where: { $0.purpose == .consent }) else { return [] }
        nextConsent = now + consentInterval * Double.random(in: 0.8...1.2)
        return [send(.consent, pair: index, now: now)]
    }

    // MARK: - Internals

    private mutating func send(_ purpose: Purpose, pair: Int, now: ContinuousClock.Instant) -> ICEAction {
        let id = STUNTransactionID.random()
        // PRIORITY: what a peer-reflexive candidate of ours would get (RFC 8445 §7.1.1).
        let request = STUNMessage.iceBindingRequest(
            transactionID: id, username: "\(remote.ufrag):\(local.ufrag)",
            priority: ICECandidate.priority(typePreference: 110), controlling: true,
            tieBreaker: tieBreaker, useCandidate: purpose != .check)
        let bytes = request.encoded(integrityKey: remote.key, fingerprint: true)
        transactions[id] = Transaction(pair: pair, purpose: purpose, bytes: bytes, transmissions: 1,
                                       nextSend: now + initialRTO, interval: initialRTO)
        return sendAction(bytes, pair: pair)
    }

    private func sendAction(_ bytes: [UInt8], pair: Int) -> ICEAction {
        guard let route = pairs[pair].route else { return .send(bytes, to: pairs[pair].remote) }
        return .sendVia(route, bytes, to: pairs[pair].remote)
    }

    private mutating func response(_ message: STUNMessage, raw: UnsafeRawBufferPointer, from source: SocketAddress,
                                   now: ContinuousClock.Instant) -> [ICEAction] {
        guard let t = transactions[message.transactionID] else { return [] }
        // Responses must be authentic and come back from where the check went (RFC 8445 §7.2.5.2.1).
        guard source == pairs[t.pair].remote, (try? message.verifyIntegrity(in: raw, key: remote.key)) != nil else { return [] }
        transactions[message.transactionID] = nil
        if message.type == .bindingError {
            return t.purpose == .consent ? [] : pairFailed(t.pair, now: now)
        }
        switch t.purpose {
        case .consent:
            lastConsent = now
            return []
        case .check:
            pairs[t.pair].succeeded = true
            guard !nominating, selectedAddress == nil else { return [] }
            nominating = true
            return [send(.nomination, pair: t.pair, now: now)]
        case .nomination:
            guard state == .checking else { return [] }
            selectedAddress = source
            selectedPair = t.pair
            state = .connected
            lastConsent = now
            nextConsent = now + consentInterval
            // Stop checking the other pairs.
            transactions = transactions.filter { $0.value.purpose == .consent }
            for i in pairs.indices { pairs[i].started = true }
            return [pairs[t.pair].route.map { .selectedVia($0, source) } ?? .selected(source), .stateChanged(.connected)]
        }
    }

    /// A full peer checks us too; answer it (RFC 8445 §7.3).
    private func answer(_ message: STUNMessage, raw: UnsafeRawBufferPointer, from source: SocketAddress) -> [ICEAction] {
        guard message.username == "\(local.ufrag):\(remote.ufrag)",
              (try? message.verifyIntegrity(in: raw, key: local.key)) != nil else { return [] }
        if let theirs = message.iceControlling, theirs >= tieBreaker {
            // Both controlling and they win the tie-break: tell them (RFC 8445 §7.3.1.1); we keep our role,
            // since our peers are ICE-lite servers that are always controlled.
            return [.send(STUNMessage.bindingError(to: message, code: 487, reason: "Role Conflict")
                .encoded(integrityKey: local.key), to: source)]
        }
        let success = STUNMessage.bindingSuccess(to: message, mappedAddress: source.stunAddress)
        return [.send(success.encoded(integrityKey: local.key), to: source)]
    }

    private mutating func pairFailed(_ index: Int, now: ContinuousClock.Instant) -> [ICEAction] {
        pairs[index].failed = true
        guard state == .checking else { return [] }
        nominating = transactions.values.contains { $0.purpose == .nomination }
        // Another pair that already succeeded can be nominated instead.
        if !nominating, let next = pairs.firstIndex(where: { $0.succeeded && !$0.failed }) {
            nominating = true
            return [send(.nomination, pair: next, now: now)]
        }
        let pending = pairs.contains { !$0.failed && !$0.started } || transactions.values.contains { $0.purpose != .consent }
        guard !pending else { return [] }
        state = .failed
        return [.stateChanged(.failed)]
    }
}
