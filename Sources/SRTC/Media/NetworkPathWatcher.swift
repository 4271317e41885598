import RTCNet

/// Notices that this client moved to another network (Wi-Fi ↔ cellular, a new address on the same
/// link): for each of the channel's paths to the server — the signaling WebSocket, the publish
/// and the subscribe transport — the local address the kernel picks toward the server's address
/// (`RouteLookup`), looked at on the channel's ticker. A path whose answer changed has moved: its
/// TCP connection was made from an address that is gone, and a transport's checks and media now
/// leave from an address the server has not selected (it routes what arrives by source address),
/// so the transport needs an ICE restart (RFC 8445 §9).
///
/// A lookup with no answer (no route: the link is down, or the old address went before the new one
/// came) changes nothing: a link that comes back with the same address needs nothing done. A path
/// toward another server address (a resume on another node) starts afresh. Pure: lookups in,
/// the moved paths out.
struct NetworkPathWatcher: Sendable {
    /// The channel's paths to the server.
    enum Path: Hashable, Sendable {
        case signaling, publish, subscribe
    }

    /// Per path: the server address and the local address last seen toward it.
    private var known: [Path: (remote: SocketAddress, local: SocketAddress)] = [:]

    /// Records one lookup: `remote` is where `path` leads now (nil: the path is not in use),
    /// `local` what the kernel answered toward it (nil: no route). Returns whether the path moved.
    mutating func observe(_ path: Path, remote: SocketAddress?, local: SocketAddress?) -> Bool {
        guard let remote else {
            known[path] = nil
            return false
        }
        guard let local else { return false }
        defer { known[path] = (remote, local) }
        guard let previous = known[path], previous.remote == remote else { return false }
        return previous.local != local
    }
}
