// The fixed session lines: origin (o=), connection (c=) and timing (t=).

/// The `o=` line (RFC 8866 §5.2).
public struct SDPOrigin: Hashable, Sendable {
    public var username: String
    /// Numeric session id; kept as text because RFC 8866 does not bound its size.
    public var sessionID: String
    /// Bumped each time the description changes (JSEP §5.2.2).
    public var sessionVersion: UInt64
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(
        username: String = "-", sessionID: String, sessionVersion: UInt64 = 2,
        networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1"
    ) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    static func parse(_ value: Substring) -> SDPOrigin? {
        let parts = SDPScanner.fields(value)
        guard parts.count == 6, !parts[1].isEmpty, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let version = SDPScanner.number(parts[2], as: UInt64.self)
        else { return nil }
        return SDPOrigin(
            username: String(parts[0]), sessionID: String(parts[1]), sessionVersion: version,
            networkType: String(parts[3]), addressType: String(parts[4]), address: String(parts[5]))
    }

    var text: String { "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)" }
}

/// The `c=` line (RFC 8866 §5.7).
public struct SDPConnection: Hashable, Sendable {
    public var networkType: String
    public var addressType: String
    /// Address, possibly with `/ttl` or `/count` as written.
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    static func parse(_ value: Substring) -> SDPConnection? {
        let parts = SDPScanner.fields(value)
        guard parts.count == 3 else { return nil }
        return SDPConnection(networkType: String(parts[0]), addressType: String(parts[1]), address: String(parts[2]))
    }

    var text: String { "\(networkType) \(addressType) \(address)" }
}

/// The `t=` line (RFC 8866 §5.9); WebRTC always writes `t=0 0`.
public struct SDPTiming: Hashable, Sendable {
    public var start: UInt64
    public var stop: UInt64

    public init(start: UInt64 = 0, stop: UInt64 = 0) {
        self.start = start
        self.stop = stop
    }

    static func parse(_ value: Substring) -> SDPTiming? {
        let parts = SDPScanner.fields(value)
        guard parts.count == 2, let start = SDPScanner.number(parts[0], as: UInt64.self),
              let stop = SDPScanner.number(parts[1], as: UInt64.self) else { return nil }
        return SDPTiming(start: start, stop: stop)
    }
}
