import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// Clients in namespaces of their own, for what a client's own network does: its address changing
// mid-call (a phone leaving Wi-Fi for cellular) and its link going down and up. A client namespace
// is joined straight to the server's namespace by a veth pair (no forwarding in this namespace
// needed): the client has one /32 address on its end and a route to the server's address through
// it; the server's namespace has a host route back. A process started in it (`ip netns exec`,
// `ClientLink.command`) has no other way out.

extension NetworkLab {
    /// A client namespace and the veth pair that joins it to a server's namespace.
    public struct ClientLink: Sendable, Equatable {
        /// The client's namespace.
        public let namespace: String
        /// The veth end inside it.
        public let device: String
        /// The server's namespace (`Link.namespace`) and the veth end there.
        public let serverNamespace: String
        public let serverDevice: String
        /// The address the client reaches the server at (the server link's inside address).
        public let serverAddress: String

        /// `arguments` run in the client's namespace (`ip netns exec`).
        public func command(_ arguments: [String]) -> [String] {
            ["/usr/sbin/ip", "netns", "exec", namespace] + arguments
        }
    }

    /// A new client namespace that reaches the server of `server` (at `server.insideAddress`)
    /// through a veth pair of its own, from a /32 address the lab chooses (`clientAddress`).
    public func addClientNamespace(reaching server: Link) throws -> ClientLink {
        let (name, tag) = newNamespaceName()
        let link = ClientLink(namespace: name, device: "ci\(tag)", serverNamespace: server.namespace, serverDevice: "cs\(tag)",
                              serverAddress: server.insideAddress)
        let address = newExtraAddress()
        // Recorded first, so `remove()` deletes it even when a step below fails.
        state.withLock { $0.append(Link(namespace: name, insideDevice: link.device, insideAddress: address,
                                         outsideDevice: link.serverDevice, outsideAddress: link.serverAddress)) }
        clientAddresses.withLock { $0[name] = address }
        try Self.run(["ip", "netns", "add", name])
        try Self.run(["ip", "link", "add", link.serverDevice, "type", "veth", "peer", "name", link.device])
        try Self.run(["ip", "link", "set", link.device, "netns", name])
        try Self.run(["ip", "link", "set", link.serverDevice, "netns", server.namespace])
        try Self.run(inServer(link, ["ip", "link", "set", link.serverDevice, "up"]))
        try Self.run(inClient(link, ["ip", "link", "set", link.device, "up"]))
        try Self.run(inClient(link, ["ip", "link", "set", "lo", "up"]))
        try Self.run(inClient(link, ["ip", "addr", "add", address + "/32", "dev", link.device]))
        try Self.run(inClient(link, ["ip", "route", "add", link.serverAddress + "/32", "dev", link.device, "src", address]))
        try Self.run(inServer(link, ["ip", "route", "add", address + "/32", "dev", link.serverDevice]))
        return link
    }

    /// The client's current address.
    public func clientAddress(_ link: ClientLink) -> String {
        clientAddresses.withLock { $0[link.namespace] ?? "" }
    }

    /// Moves the client to a new address, as a phone that leaves Wi-Fi for cellular: the new
    /// address is added and the route to the server takes it as its source, then the old address
    /// is removed (sockets bound to it stop working; the client's wildcard sockets send from the
    /// new one). Returns the new address.
    @discardableResult
    public func moveClient(_ link: ClientLink) throws -> String {
        let old = clientAddress(link)
        let new = newExtraAddress()
        try Self.run(inClient(link, ["ip", "addr", "add", new + "/32", "dev", link.device]))
        try Self.run(inServer(link, ["ip", "route", "add", new + "/32", "dev", link.serverDevice]))
        try Self.run(inClient(link, ["ip", "route", "replace", link.serverAddress + "/32", "dev", link.device, "src", new]))
        clientAddresses.withLock { $0[link.namespace] = new }
        try Self.run(inClient(link, ["ip", "addr", "del", old + "/32", "dev", link.device]))
        _ = try? Self.run(inServer(link, ["ip", "route", "del", old + "/32"]))
        return new
    }

    /// Takes the client's link down (the server's end goes down, the client's loses its carrier)
    /// or brings it back up; the addresses stay. The kernel drops the routes of a device that goes
    /// down and brings back only those of its own addresses: the server's route to the client is
    /// put back here.
    public func setClientLink(_ link: ClientLink, up: Bool) throws {
        try Self.run(inServer(link, ["ip", "link", "set", link.serverDevice, up ? "up" : "down"]))
        guard up else { return }
        try Self.run(inServer(link, ["ip", "route", "replace", clientAddress(link) + "/32", "dev", link.serverDevice]))
    }

    // MARK: - Internals

    private func inClient(_ link: ClientLink, _ arguments: [String]) -> [String] {
        ["ip", "netns", "exec", link.namespace] + arguments
    }

    private func inServer(_ link: ClientLink, _ arguments: [String]) -> [String] {
        ["ip", "netns", "exec", link.serverNamespace] + arguments
    }
}
