import Foundation
import RTCNet
import RTCTransport
import Synchronization

/// Keeps a load test on this machine: signaling URLs must name a loopback host, and media goes
/// only to candidates that are addresses of this machine's own interfaces (a server announcing
/// its interface address is reached through the loopback device too). A network lab's server
/// namespace is this machine too: its addresses are allowed once the lab names them (`allowLab`).
package enum LocalOnly {
    /// Addresses inside network namespaces this process made (`allowLab`).
    private static let labAddresses = Mutex<Set<String>>([])

    /// Allows `addresses` (a lab namespace's, which `srtc-bench lab` made and removes) as servers'
    /// hosts and candidates; `forget` takes them back when the namespace goes.
    package static func allowLab(_ addresses: [String]) {
        labAddresses.withLock { $0.formUnion(addresses) }
    }

    package static func forgetLab(_ addresses: [String]) {
        labAddresses.withLock { $0.subtract(addresses) }
    }

    /// The host of an `http(s)://` or `ws(s)://` URL, if it is a loopback name or address.
    static func checkURL(_ url: String) throws(LoadError) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme, ["http", "https", "ws", "wss"].contains(scheme),
              let host = parsed.host?.trimmingCharacters(in: ["[", "]"]) else {
            throw .invalidScenario("not an http(s) or ws(s) URL: \(url)")
        }
        let loopback = host == "localhost" || SocketAddress(ip: host, port: 0)?.isLoopback == true
            || labAddresses.withLock { $0.contains(host) }
        guard loopback else { throw .invalidScenario("load tests run on loopback only; \(url) is not a loopback address") }
    }

    /// The candidates that are addresses of this machine.
    static func filter(_ candidates: [ICECandidate]) throws(LoadError) -> [ICECandidate] {
        let own = Set((ICECandidate.hostCandidates(for: SocketAddress(ip: "0.0.0.0", port: 0)!, includeLoopback: true)
                       + ICECandidate.hostCandidates(for: SocketAddress(ip: "::", port: 0)!, includeLoopback: true))
            .map { $0.address.ipString }).union(labAddresses.withLock { $0 })
        let local = candidates.filter { $0.address.isLoopback || own.contains($0.address.ipString) }
        guard !local.isEmpty else {
            throw .setup("the server offered no candidate on this machine (\(candidates.map(\.address.ipString))): load tests are local only")
        }
        return local
    }
}
