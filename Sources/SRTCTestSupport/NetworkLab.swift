import Foundation
import Processes
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A network lab for tests: network namespaces, each joined to this one by a veth pair with 10.x
/// addresses the lab chooses, and kernel rate limits on them (`tc` tbf: a real bottleneck with a
/// queue). netem is not available here (docs/network.md): loss, reordering and fixed delay come
/// from a userspace relay in the server's namespace (`addRelay`, `LabRelay`), or loss alone from
/// nftables (`setLoss`).
///
/// Everything the lab makes is removed by `remove()` (call it in a `defer`, so a failed test
/// cleans up too), by `deinit`, and — for a lab whose process died — by the next lab made, which
/// deletes namespaces named `srtclab-<pid>-…` whose process is gone. Needs root (`ip netns`).
public final class NetworkLab: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// One namespace and the veth pair that joins it to the lab's own namespace.
    public struct Link: Sendable, Equatable {
        /// The namespace (`ip netns exec <namespace> …`).
        public let namespace: String
        /// The veth end inside the namespace and its address.
        public let insideDevice: String
        public let insideAddress: String
        /// The veth end in the lab's own namespace and its address.
        public let outsideDevice: String
        public let outsideAddress: String
    }

    /// Which end of a link a rate limit shapes: the kernel shapes what a device sends.
    public enum Side: Sendable {
        /// Traffic leaving the namespace.
        case inside
        /// Traffic entering the namespace.
        case outside
    }

    private static let prefix = "srtclab-"
    private static let counter = Atomic<Int>(0)
    /// Every namespace the lab made (a client namespace's as a `Link` whose outside end is in the
    /// server's namespace), for `remove()`.
    let state = Mutex<[Link]>([])
    private let id: Int
    /// Extra addresses handed out (`addOutsideAddress`, client namespaces), across the lab's links.
    private let extraAddresses = Atomic<Int>(0)
    /// Each client namespace's current address (`moveClient` changes it).
    let clientAddresses = Mutex<[String: String]>([:])
    /// The relays started (`addRelay`), stopped by `remove()`.
    let relays = Mutex<[Relay]>([])

    /// Whether this machine lets the test make namespaces (root, `ip` present).
    public static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/tc")
    }

    public init() {
        id = Self.counter.add(1, ordering: .relaxed).newValue
        Self.removeStale()
    }

    deinit { remove() }

    // MARK: - Public API

    /// A new namespace joined by a veth pair: inside `10.a.b.1/30`, outside `10.a.b.2/30`, both up.
    public func addNamespace() throws -> Link {
        let pid = Int(getpid())
        let index = state.withLock { $0.count }
        let (name, tag) = newNamespaceName()
        // One /30 per link, from the pid, lab and index: labs of parallel test processes differ.
        let second = 64 + pid % 128, third = (id * 16 + index) % 256
        let link = Link(namespace: name, insideDevice: "li\(tag)", insideAddress: "10.\(second).\(third).1",
                        outsideDevice: "lo\(tag)", outsideAddress: "10.\(second).\(third).2")
        state.withLock { $0.append(link) }
        try Self.run(["ip", "netns", "add", name])
        try Self.run(["ip", "link", "add", link.outsideDevice, "type", "veth", "peer", "name", link.insideDevice])
        try Self.run(["ip", "link", "set", link.insideDevice, "netns", name])
        try Self.run(["ip", "addr", "add", link.outsideAddress + "/30", "dev", link.outsideDevice])
        try Self.run(["ip", "link", "set", link.outsideDevice, "up"])
        try Self.run(["ip", "netns", "exec", name, "ip", "addr", "add", link.insideAddress + "/30", "dev", link.insideDevice])
        try Self.run(["ip", "netns", "exec", name, "ip", "link", "set", link.insideDevice, "up"])
        try Self.run(["ip", "netns", "exec", name, "ip", "link", "set", "lo", "up"])
        return link
    }

    /// Limits what `side` of `link` sends with a token bucket: `rate` bits per second, a bucket of
    /// `burst` bytes, and a queue of at most `latency` (tbf's own parameters, tc-tbf(8)).
    public func limit(_ link: Link, side: Side, rate: Int, burstBytes: Int = 8192, latencyMilliseconds: Int = 200) throws {
        try Self.run(command(link, side, ["tc", "qdisc", "replace", "dev", device(link, side), "root", "tbf",
                                          "rate", "\(rate)bit", "burst", "\(burstBytes)", "latency", "\(latencyMilliseconds)ms"]))
    }

    /// Removes the limit on `side` of `link`.
    public func unlimit(_ link: Link, side: Side) throws {
        try Self.run(command(link, side, ["tc", "qdisc", "del", "dev", device(link, side), "root"]))
    }

    /// Takes the link down (both directions: the veth end outside goes down, the end inside loses
    /// its carrier) or brings it back up; addresses stay, and the kernel restores the routes.
    public func setLink(_ link: Link, up: Bool) throws {
        try Self.run(["ip", "link", "set", link.outsideDevice, up ? "up" : "down"])
    }

    /// What `tc -s qdisc` says about `side` of `link` (sent bytes, drops, backlog).
    public func queueStatistics(_ link: Link, side: Side) -> String {
        (try? Self.run(command(link, side, ["tc", "-s", "qdisc", "show", "dev", device(link, side)]))) ?? ""
    }

    /// Deletes every namespace and veth the lab made (a veth goes with its namespace).
    public func remove() {
        for relay in relays.withLock({ r in defer { r = [] }; return r }) { relay.stop() }
        let links = state.withLock { links in defer { links = [] }; return links }
        for link in links {
            _ = try? Self.run(["ip", "link", "del", link.outsideDevice])
            _ = try? Self.run(["ip", "netns", "del", link.namespace])
        }
    }

    /// Namespaces the lab made that still exist (for tests of the lab itself).
    public static func existingNamespaces() -> [String] {
        ((try? run(["ip", "netns", "list"])) ?? "").split(separator: "\n")
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0.hasPrefix(prefix) }
    }

    // MARK: - Internals

    /// The next extra address, unique in this process (labs are numbered too), in another range
    /// than the links' /30s (10.64–191.x.x): 10.192–255.x.x.
    func newExtraAddress() -> String {
        let pid = Int(getpid())
        let extra = (id * 16 + extraAddresses.add(1, ordering: .relaxed).oldValue) % 16_000
        return "10.\(192 + pid % 64).\(extra / 250).\(extra % 250 + 2)"
    }

    /// A name for the next namespace (`srtclab-<pid>-<lab>-<index>`, so a later lab can tell a
    /// dead process's) and the tag its devices carry (devices have 15 characters at most).
    func newNamespaceName() -> (name: String, tag: String) {
        let pid = Int(getpid())
        let index = state.withLock { $0.count }
        return ("\(Self.prefix)\(pid)-\(id)-\(index)", String(format: "%05x%x%x", pid & 0xFFFFF, id & 0xF, index & 0xF))
    }

    private func device(_ link: Link, _ side: Side) -> String { side == .inside ? link.insideDevice : link.outsideDevice }

    private func command(_ link: Link, _ side: Side, _ arguments: [String]) -> [String] {
        side == .inside ? ["ip", "netns", "exec", link.namespace] + arguments : arguments
    }

    /// Namespaces of labs whose process is gone (a test killed half way).
    private static func removeStale() {
        for name in existingNamespaces() {
            let parts = name.dropFirst(prefix.count).split(separator: "-")
            guard let pid = parts.first.flatMap({ Int32($0) }), kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? run(["ip", "netns", "del", name])
        }
    }

    /// Runs a command from /usr/sbin; `input` goes to its standard input.
    @discardableResult
    static func run(_ arguments: [String], input: String? = nil) throws -> String {
        let (status, output) = try ChildProcess.run(["/usr/sbin/" + arguments[0]] + arguments.dropFirst(), input: input)
        guard status == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) failed (\(status)): \(output)")
        }
        return output
    }
}
