import RTCNet
import RTCWire
import RTCCrypto

/// An ICE username fragment and password (RFC 8445 §5.3; `a=ice-ufrag` / `a=ice-pwd` in SDP).
public struct ICECredentials: Hashable, Sendable {
    public var ufrag: String
    public var pwd: String

    public init(ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// Fresh random credentials: 8 characters of ufrag (≥ 4 required) and 24 of password
    /// (≥ 22 required, RFC 8839 §5.4), from the ice-char alphabet.
    public static func random() -> ICECredentials {
        ICECredentials(ufrag: SecureRandom.string(count: 8), pwd: SecureRandom.string(count: 24))
    }

    /// The password as the STUN short-term credential key (RFC 8489 §9.1.2).
    var key: [UInt8] { Array(pwd.utf8) }
}

/// Connectivity state of one ICE agent.
public enum ICEState: Sendable, Equatable {
    /// Nothing received or sent yet.
    case new
    /// Checks are under way.
    case checking
    /// A pair is selected and consent is fresh.
    case connected
    /// No pair worked, or consent expired (RFC 7675 §5.1).
    case failed
}

/// What an ICE state machine asks its I/O layer to do.
public enum ICEAction: Sendable, Equatable {
    /// Send these STUN bytes to this address.
    case send([UInt8], to: SocketAddress)
    /// The agent's state changed.
    case stateChanged(ICEState)
    /// Media should now go to (and is expected from) this remote address.
    case selected(SocketAddress)
    /// Send these STUN bytes to this address by another route than our UDP socket's direct path.
    case sendVia(ICERoute, [UInt8], to: SocketAddress)
    /// Media should now go to this remote address by `route`.
    case selectedVia(ICERoute, SocketAddress)
}

/// How a client's checks and media reach a remote candidate other than directly over UDP.
public enum ICERoute: Sendable, Hashable {
    /// An ICE-TCP connection opened to a passive TCP candidate (RFC 6544 §7.1).
    case tcp
    /// Through the client's TURN allocation, on a channel to the candidate (RFC 8656).
    case relay
}

/// Why an ICE step refused its input.
public enum ICEError: Error, Sendable, Equatable {
    /// A candidate line is not `candidate:<foundation> <component> <transport> <priority> <ip> <port> typ <type>`.
    case badCandidate(String)
}

extension SocketAddress {
    /// This address as STUN carries it.
    var stunAddress: STUNAddress {
        STUNAddress(ip: addressBytes, port: port)! // addressBytes is always 4 or 16 bytes
    }
}

extension STUNAddress {
    /// This address as a socket address.
    var socketAddress: SocketAddress {
        if isIPv4 { return SocketAddress(ipv4: (ip[0], ip[1], ip[2], ip[3]), port: port) }
        return SocketAddress(ipv6: ip, port: port)
    }
}
