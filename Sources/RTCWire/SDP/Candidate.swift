/// An ICE candidate, `a=candidate:` (RFC 8839 §5.1):
///
/// `<foundation> <component> <transport> <priority> <address> <port> typ <type>
///  [raddr <address>] [rport <port>] *(<extension name> <extension value>)`
///
/// The same text (prefixed `candidate:`) is what trickle ICE sends over signaling.
public struct Candidate: Hashable, Sendable, CustomStringConvertible {
    /// Candidate type (RFC 8445 §5.1.1).
    public struct Kind: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let host = Kind(rawValue: "host")
        public static let serverReflexive = Kind(rawValue: "srflx")
        public static let peerReflexive = Kind(rawValue: "prflx")
        public static let relay = Kind(rawValue: "relay")
    }

    /// 1–32 ice-chars.
    public var foundation: String
    /// 1 for RTP (RTCP is muxed in WebRTC).
    public var component: UInt16
    /// `udp` or `tcp`, as written.
    public var transport: String
    public var priority: UInt32
    /// IP address or FQDN (browsers use `<uuid>.local` mDNS names).
    public var address: String
    public var port: UInt16
    public var kind: Kind
    /// Related address and port (srflx / relay).
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// Extension name/value pairs in order (`generation 0`, `ufrag abc`, `network-id 1`, `tcptype passive`).
    public var extensions: [(name: String, value: String)]

    public init(
        foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32,
        address: String, port: UInt16, kind: Kind = .host, relatedAddress: String? = nil, relatedPort: UInt16? = nil,
        extensions: [(name: String, value: String)] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// The RFC 8445 §5.1.2.1 priority: (2^24)·type preference + (2^8)·local preference + (256 − component).
    public static func priority(typePreference: UInt32, localPreference: UInt32 = 65_535, component: UInt16 = 1) -> UInt32 {
        (typePreference << 24) | ((localPreference & 0xFFFF) << 8) | (256 - UInt32(min(component, 256)))
    }

    /// Parses `candidate:…`, `a=candidate:…` or the bare attribute value.
    /// - Throws: `SDPError.invalidAttribute` when the text does not follow RFC 8839 §5.1.
    public init(parsing text: String) throws(SDPError) {
        var value = Substring(text).trimmingSpaces
        if value.hasPrefix("a=") { value = value.dropFirst(2) }
        if value.hasPrefix("candidate:") { value = value.dropFirst("candidate:".count) }
        guard let candidate = Self.parse(value) else { throw .invalidAttribute(line: 0, name: "candidate") }
        self = candidate
    }

    static func parse(_ value: Substring) -> Candidate? {
        let parts = SDPScanner.fields(value)
        guard parts.count >= 8, parts.count % 2 == 0,
              (1 ... 32).contains(parts[0].utf8.count), SDPScanner.isAlphanumeric(parts[0], extra: "+/"),
              let component = SDPScanner.number(parts[1], as: UInt16.self), (1 ... 256).contains(component),
              SDPScanner.isToken(parts[2]),
              let priority = SDPScanner.number(parts[3], as: UInt32.self),
              SDPScanner.isVisible(parts[4]),
              let port = SDPScanner.number(parts[5], as: UInt16.self),
              parts[6] == "typ", SDPScanner.isToken(parts[7])
        else { return nil }
        // RFC 8839 §5.1: foundation = 1*32 ice-char (ALPHA / DIGIT / "+" / "/").
        var candidate = Candidate(
            foundation: String(parts[0]), component: component, transport: String(parts[2]), priority: priority,
            address: String(parts[4]), port: port, kind: Kind(rawValue: String(parts[7])))
        var index = 8
        if index + 1 < parts.count, parts[index] == "raddr" {
            guard SDPScanner.isVisible(parts[index + 1]) else { return nil }
            candidate.relatedAddress = String(parts[index + 1])
            index += 2
        }
        if index + 1 < parts.count, parts[index] == "rport" {
            guard let relatedPort = SDPScanner.number(parts[index + 1], as: UInt16.self) else { return nil }
            candidate.relatedPort = relatedPort
            index += 2
        }
        while index + 1 < parts.count {
            let name = parts[index]
            guard SDPScanner.isToken(name), name != "raddr", name != "rport", SDPScanner.isVisible(parts[index + 1]) else {
                return nil
            }
            candidate.extensions.append((String(name), String(parts[index + 1])))
            index += 2
        }
        return candidate
    }

    /// The value of extension `name` (`generation`, `ufrag`, …).
    public func extensionValue(_ name: String) -> String? {
        extensions.first { $0.name == name }?.value
    }

    /// The attribute value, without `candidate:`.
    public var description: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(kind.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        for (name, value) in extensions { text += " \(name) \(value)" }
        return text
    }

    /// `candidate:…`, the form of `RTCIceCandidate.candidate` in browsers.
    public var candidateLine: String { "candidate:" + description }

    public static func == (a: Candidate, b: Candidate) -> Bool {
        a.description == b.description
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
