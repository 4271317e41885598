import Foundation
import RTCNet
import RTCTransport
import SRTCProtocol
import Synchronization

/// The TURN relay a channel's transports use: the first `turn:` URL for UDP in the join
/// response's `ice_servers` (RFC 7065 syntax, `turn:host[:port][?transport=udp]`, port 3478 by
/// default), with its short-lived credentials, and the engine's `ICETransportPolicy`. Updated at
/// every join and resume (fresh credentials); read when a transport is made.
final class MediaRelay: Sendable {
    let policy: ICETransportPolicy
    private let server = Mutex<TURNServer?>(nil)

    init(policy: ICETransportPolicy) {
        self.policy = policy
    }

    /// The relay to use now, if the server offered one.
    var turnServer: TURNServer? { server.withLock { $0 } }

    /// Takes the relay from a join response's `ice_servers`.
    func update(_ servers: [ICEServer]) {
        let found = Self.turnServer(from: servers)
        server.withLock { $0 = found }
    }

    /// The first usable UDP TURN server in `servers`; `turns:` and TCP transports are skipped.
    static func turnServer(from servers: [ICEServer]) -> TURNServer? {
        for entry in servers {
            guard let username = entry.username, let password = entry.credential else { continue }
            for url in entry.urls {
                guard url.hasPrefix("turn:") else { continue }
                let rest = url.dropFirst("turn:".count)
                let parts = rest.split(separator: "?", maxSplits: 1)
                if parts.count == 2, parts[1] != "transport=udp" { continue }
                let hostPort = String(parts.first ?? "")
                var host = hostPort, port: UInt16 = 3478
                if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasPrefix("[") || hostPort[..<colon].hasSuffix("]") {
                    guard let p = UInt16(hostPort[hostPort.index(after: colon)...]) else { continue }
                    host = String(hostPort[..<colon])
                    port = p
                }
                host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                guard let address = try? SocketAddress.resolve(host: host, port: port) else { continue }
                return TURNServer(address: address, username: username, password: password)
            }
        }
        return nil
    }
}
