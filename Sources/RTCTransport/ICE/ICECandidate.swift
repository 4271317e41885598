import RTCNet

/// A UDP ICE candidate (RFC 8445 §5.1, SDP syntax RFC 8839 §5.1). We gather and use host
/// candidates only: the server announces its host (or `--public-ip`) address, clients check it.
public struct ICECandidate: Hashable, Sendable, CustomStringConvertible {
    public var foundation: String
    public var component: Int
    public var priority: UInt32
    public var address: SocketAddress
    /// `host`, `srflx`, `prflx` or `relay`.
    public var type: String

    public init(foundation: String = "1", component: Int = 1, priority: UInt32? = nil, address: SocketAddress, type: String = "host") {
        self.foundation = foundation
        self.component = component
        self.priority = priority ?? ICECandidate.priority(typePreference: type == "host" ? 126 : 100, component: component)
        self.address = address
        self.type = type
    }

    /// RFC 8445 §5.1.2.1: (2^24)·type preference + (2^8)·local preference + (256 − component).
    public static func priority(typePreference: UInt32, localPreference: UInt32 = 65535, component: Int = 1) -> UInt32 {
        (typePreference << 24) | (localPreference << 8) | UInt32(256 - max(1, min(component, 256)))
    }

    /// Parses `candidate:1 1 udp 2130706431 192.0.2.1 7881 typ host ...` (with or without `a=`).
    /// Only numeric addresses are accepted (mDNS `.local` names are not resolved here).
    public init(sdpAttribute text: String) throws(ICEError) {
        var line = Substring(text.trimmingCharacters(in: [" ", "\r", "\n"]))
        if line.hasPrefix("a=") { line = line.dropFirst(2) }
        guard line.hasPrefix("candidate:") else { throw .badCandidate(text) }
        let fields = line.dropFirst("candidate:".count).split(separator: " ")
        guard fields.count >= 8, fields[6] == "typ",
              let component = Int(fields[1]), let priority = UInt32(fields[3]), let port = UInt16(fields[5]),
              fields[2].lowercased() == "udp",
              let address = SocketAddress(ip: String(fields[4]), port: port) else { throw .badCandidate(text) }
        self.init(foundation: String(fields[0]), component: component, priority: priority, address: address, type: String(fields[7]))
    }

    /// The SDP attribute value: `candidate:<foundation> <component> udp <priority> <ip> <port> typ <type>`.
    public var sdpAttribute: String {
        "candidate:\(foundation) \(component) udp \(priority) \(address.ipString) \(address.port) typ \(type)"
    }

    public var description: String { sdpAttribute }
}

private extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
