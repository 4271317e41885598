import RTCNet
import RTCWire

/// A TURN server and the short-lived credentials for it (the join response's `ice_servers`).
public struct TURNServer: Sendable, Hashable {
    public var address: SocketAddress
    public var username: String
    public var password: String

    public init(address: SocketAddress, username: String, password: String) {
        self.address = address
        self.username = username
        self.password = password
    }
}

/// The client side of TURN over UDP (RFC 8656): one allocation on `server`, authenticated with the
/// long-term credential mechanism (RFC 8489 §9.2: the first Allocate is refused with 401 and the
/// server's REALM and NONCE, the second is signed), kept alive with Refresh, and a channel per peer
/// (ChannelBind also installs the permission, RFC 8656 §12.2) so data travels as 4-byte-header
/// ChannelData. The relay itself is coturn's job; this is the part every WebRTC client has.
///
/// Pure state machine: events in (`start`, `handle`, `tick`, `bind`), actions out.
public struct TURNClient: Sendable {
    public enum State: Sendable, Equatable { case idle, allocating, allocated, failed }

    /// What the I/O layer should do.
    public enum Action: Sendable, Equatable {
        /// Send these bytes to the TURN server.
        case send([UInt8])
        /// The allocation exists: the relayed address peers see.
        case allocated(SocketAddress)
        /// Data to and from `peer` may now use `channel`.
        case channelBound(peer: SocketAddress, channel: UInt16)
        /// The allocation failed or was lost; the text says why.
        case failed(String)
    }

    public let server: TURNServer
    public private(set) var state: State = .idle
    public private(set) var relayedAddress: SocketAddress?
    /// First retransmission timeout; doubles per retransmission (RFC 8489 §6.2.1).
    public var initialRTO: Duration = .milliseconds(250)
    public var maxTransmissions = 7
    /// Channel bindings (and their permissions) are refreshed this often (they last 10 and 5 min).
    public var channelRefreshInterval: Duration = .seconds(240)

    private enum Purpose: Sendable, Equatable {
        case allocate, refresh, channelBind(peer: SocketAddress, channel: UInt16)
        /// A Refresh after the client's path may have moved (`revalidate`).
        case revalidate
    }

    private struct Transaction: Sendable {
        var purpose: Purpose
        var bytes: [UInt8]
        var transmissions: Int
        var nextSend: ContinuousClock.Instant
        var interval: Duration
    }

    private var realm: String?
    private var nonce: String?
    private var key: [UInt8]?
    private var authRetries = 0
    private var transactions: [STUNTransactionID: Transaction] = [:]
    private var bound: [SocketAddress: UInt16] = [:]
    private var peers: [UInt16: SocketAddress] = [:]
    private var wanted: [SocketAddress: UInt16] = [:]
    private var nextChannel: UInt16 = TURNChannelData.channelRange.lowerBound
    private var refreshAt: ContinuousClock.Instant?
    private var channelRefreshAt: ContinuousClock.Instant?

    public init(server: TURNServer) {
        self.server = server
    }

    // MARK: - Events in

    /// Sends the first (unauthenticated) Allocate.
    public mutating func start(now: ContinuousClock.Instant) -> [Action] {
        guard state == .idle else { return [] }
        state = .allocating
        return [request(.allocate, now: now)]
    }

    /// The client's path may have moved (an ICE restart after its address changed): an
    /// allocation belongs to the 5-tuple that made it (RFC 8656 §2.2), and one made from an
    /// address the device no longer has cannot be used or refreshed from the new one. A Refresh
    /// tells: answered, the allocation and its channels stay; refused with 437 (Allocation
    /// Mismatch, §7.3: no allocation for this 5-tuple), the client allocates again and binds
    /// channels again as they are asked for. A client that had failed starts over.
    public mutating func revalidate(now: ContinuousClock.Instant) -> [Action] {
        switch state {
        case .idle: return []
        case .failed:
            state = .idle
            resetAllocation()
            return start(now: now)
        case .allocating: return []
        case .allocated: return [request(.revalidate, now: now)]
        }
    }

    /// Forgets the allocation and its channels (the credentials' realm and nonce stay).
    private mutating func resetAllocation() {
        relayedAddress = nil
        transactions.removeAll()
        bound.removeAll()
        peers.removeAll()
        wanted.removeAll()
        nextChannel = TURNChannelData.channelRange.lowerBound
        refreshAt = nil
        channelRefreshAt = nil
        authRetries = 0
    }

    /// Asks for a channel to `peer` (sent once the allocation exists). Idempotent.
    public mutating func bind(peer: SocketAddress, now: ContinuousClock.Instant) -> [Action] {
        guard state != .failed, wanted[peer] == nil else { return [] }
        guard nextChannel <= TURNChannelData.channelRange.upperBound else { return [] }
        let channel = nextChannel
        nextChannel += 1
        wanted[peer] = channel
        peers[channel] = peer
        return state == .allocated ? [request(.channelBind(peer: peer, channel: channel), now: now)] : []
    }

    /// The bound channel to `peer`, if any.
    public func channel(for peer: SocketAddress) -> UInt16? { bound[peer] }

    /// The peer of `channel`, once bound.
    public func peer(for channel: UInt16) -> SocketAddress? {
        guard let peer = peers[channel], bound[peer] == channel else { return nil }
        return peer
    }

    /// `true` for a response to one of our requests (to tell it from ICE traffic).
    public func isResponse(_ message: STUNMessage) -> Bool { transactions[message.transactionID] != nil }

    /// A response from the server.
    public mutating func handle(_ message: STUNMessage, raw: UnsafeRawBufferPointer, now: ContinuousClock.Instant) -> [Action] {
        guard let t = transactions.removeValue(forKey: message.transactionID) else { return [] }
        if message.type.messageClass == .errorResponse {
            return error(message, for: t, now: now)
        }
        guard message.type.messageClass == .successResponse else { return [] }
        // Responses to signed requests are signed with the same key (RFC 8489 §9.2.4).
        if let key, (try? message.verifyIntegrity(in: raw, key: key)) == nil { return [] }
        authRetries = 0
        switch t.purpose {
        case .allocate:
            guard let relayed = try? message.xorAddress(STUNAttribute.xorRelayedAddress) else {
                state = .failed
                return [.failed("Allocate success without XOR-RELAYED-ADDRESS")]
            }
            let address = relayed.socketAddress
            relayedAddress = address
            state = .allocated
            scheduleRefresh(lifetime: message.lifetimeSeconds, now: now)
            channelRefreshAt = now + channelRefreshInterval
            var actions: [Action] = [.allocated(address)]
            let waiting = wanted
            for (peer, channel) in waiting { actions.append(request(.channelBind(peer: peer, channel: channel), now: now)) }
            return actions
        case .refresh, .revalidate:
            scheduleRefresh(lifetime: message.lifetimeSeconds, now: now)
            return []
        case .channelBind(let peer, let channel):
            let fresh = bound[peer] == nil
            bound[peer] = channel
            return fresh ? [.channelBound(peer: peer, channel: channel)] : []
        }
    }

    /// Retransmissions, allocation refresh and channel refresh.
    public mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        guard state == .allocating || state == .allocated else { return [] }
        var actions: [Action] = []
        for (id, var t) in transactions where t.nextSend <= now {
            if t.transmissions >= maxTransmissions {
                transactions[id] = nil
                if t.purpose == .allocate || t.purpose == .refresh || t.purpose == .revalidate {
                    state = .failed
                    transactions.removeAll()
                    return actions + [.failed("the TURN server did not answer")]
                }
                continue
            }
            t.transmissions += 1
            t.interval = t.interval * 2
            t.nextSend = now + t.interval
            transactions[id] = t
            actions.append(.send(t.bytes))
        }
        if state == .allocated, let at = refreshAt, at <= now {
            refreshAt = nil
            actions.append(request(.refresh, now: now))
        }
        if state == .allocated, let at = channelRefreshAt, at <= now {
            channelRefreshAt = now + channelRefreshInterval
            for (peer, channel) in bound { actions.append(request(.channelBind(peer: peer, channel: channel), now: now)) }
        }
        return actions
    }

    // MARK: - Internals

    private mutating func error(_ message: STUNMessage, for t: Transaction, now: ContinuousClock.Instant) -> [Action] {
        let code = message.errorCode?.code ?? 0
        // 401 (first contact) and 438 (stale nonce): take the server's REALM and NONCE, sign, retry once.
        if code == 401 || code == 438, authRetries < 2, let nonce = message.text(STUNAttribute.nonce) {
            authRetries += 1
            if let realm = message.text(STUNAttribute.realm) { self.realm = realm }
            self.nonce = nonce
            if let realm { key = STUNMessage.longTermKey(username: server.username, realm: realm, password: server.password) }
            return [request(t.purpose, now: now)]
        }
        switch t.purpose {
        case .revalidate where code == 437:
            // The allocation was made from another address: a new one from this 5-tuple.
            resetAllocation()
            state = .allocating
            return [request(.allocate, now: now)]
        case .allocate, .refresh, .revalidate:
            state = .failed
            transactions.removeAll()
            return [.failed("TURN \(t.purpose == .allocate ? "Allocate" : "Refresh") refused: \(code) \(message.errorCode?.reason ?? "")")]
        case .channelBind:
            return []
        }
    }

    private mutating func scheduleRefresh(lifetime: UInt32?, now: ContinuousClock.Instant) {
        // Refresh at half the lifetime (at least 30 s), well before it runs out.
        let seconds = max(60, Int64(lifetime ?? 600))
        refreshAt = now + .seconds(seconds / 2)
    }

    private mutating func request(_ purpose: Purpose, now: ContinuousClock.Instant) -> Action {
        let id = STUNTransactionID.random()
        var attributes: [STUNAttribute] = []
        let method: UInt16
        switch purpose {
        case .allocate:
            method = STUNMessageType.allocateMethod
            attributes.append(.requestedTransportUDP)
        case .refresh, .revalidate:
            method = STUNMessageType.refreshMethod
            attributes.append(.lifetime(seconds: 600))
        case .channelBind(let peer, let channel):
            method = STUNMessageType.channelBindMethod
            attributes.append(.channelNumber(channel))
            attributes.append(.xorPeerAddress(peer.stunAddress, transactionID: id))
        }
        if let realm, let nonce {
            attributes += [.username(server.username), .text(STUNAttribute.realm, realm), .text(STUNAttribute.nonce, nonce)]
        }
        let bytes = STUNMessage(type: STUNMessageType(method: method, class: .request), transactionID: id, attributes: attributes)
            .encoded(integrityKey: key, fingerprint: true)
        transactions[id] = Transaction(purpose: purpose, bytes: bytes, transmissions: 1, nextSend: now + initialRTO, interval: initialRTO)
        return .send(bytes)
    }
}
