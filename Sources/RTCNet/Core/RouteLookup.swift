#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif

/// Which local address this host would send from toward a peer right now: the kernel's route
/// lookup, asked by connecting a UDP socket (nothing is sent) and reading its name. A client
/// whose answer changes has moved to another network (Wi-Fi ↔ cellular): its sockets bound to
/// the wildcard address now send from the new address, and connections made from the old one
/// (a WebSocket's TCP) are dead.
public enum RouteLookup {
    /// The local address (port 0) for sending to `remote`; nil when there is no route (no
    /// address of that family, the link down without a route left).
    public static func sourceAddress(toward remote: SocketAddress) -> SocketAddress? {
        guard let fd = try? Sockets.udpSocket(for: remote.family) else { return nil }
        defer { _ = udpCloseDescriptor(fd) }
        // Any port but 0 will do: the route depends on the address alone.
        let target = remote.port == 0 ? remote.with(port: 9) : remote
        let connected = target.withSockAddr { connect(fd, $0, $1) }
        guard connected == 0, let local = Sockets.localAddress(fd) else { return nil }
        return local.with(port: 0)
    }
}
