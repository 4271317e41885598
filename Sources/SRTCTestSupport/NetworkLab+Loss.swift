import Foundation
import TestRandom
#if canImport(Glibc)
import Glibc
#endif

// Loss and extra addresses in the lab. netem is missing from this kernel and so is tc's gact
// (docs/network.md), but nftables is not: a rule in the namespace's output hook drops a random
// share of the datagrams it sends to one address (`numgen random`), or runs of consecutive ones
// (`numgen inc`, deterministic), or a seeded random pattern of positions in each run of 1000
// (`numgen inc mod 1000` in a set). The kernel drops them before the veth, as a lossy link would;
// nothing is decrypted or relayed, so a retransmission is never mistaken for a replay.

extension NetworkLab {
    /// How the datagrams a namespace sends to one address are lost.
    public enum Loss: Sendable, Equatable {
        /// Each datagram lost with probability `perMille` / 1000, independently.
        case random(perMille: Int)
        /// `length` consecutive datagrams lost in every `period` (10 of 100: 10 % in bursts).
        case burst(length: Int, period: Int)
        /// `perMille` datagrams lost in every 1000, at positions drawn at random from `seed`: random
        /// loss that replays. Two calls under the same seed lose the same positions of the datagrams
        /// sent to the address (which packets those are depends on what else goes there, and when).
        case seeded(perMille: Int, seed: UInt64)

        /// The positions `.seeded` loses in each run of 1000 datagrams, sorted.
        public static func seededPositions(perMille: Int, seed: UInt64) -> [Int] {
            var random = SeededRandom(seed: seed)
            return Array((0 ..< 1000).shuffled(using: &random).prefix(max(0, min(1000, perMille)))).sorted()
        }
    }

    /// Adds a second address to the outside end of `link` (reachable from inside through the
    /// same veth, with a host route), for a client that the lab must tell apart from the others
    /// (loss toward it alone) or that moves to a new address mid-call. Removed with the link.
    public func addOutsideAddress(_ link: Link) throws -> String {
        let address = newExtraAddress()
        try Self.run(["ip", "addr", "add", address + "/32", "dev", link.outsideDevice])
        try Self.run(["ip", "netns", "exec", link.namespace, "ip", "route", "add", address + "/32", "dev", link.insideDevice])
        return address
    }

    /// Removes an address `addOutsideAddress` added: sockets bound to it stop working, as a
    /// phone's Wi-Fi address does when it leaves the network.
    public func removeOutsideAddress(_ address: String, of link: Link) throws {
        try Self.run(["ip", "addr", "del", address + "/32", "dev", link.outsideDevice])
        _ = try? Self.run(["ip", "netns", "exec", link.namespace, "ip", "route", "del", address + "/32"])
    }

    /// Loses UDP datagrams that the namespace of `link` sends to `address` (nil: no loss).
    /// Replaces any loss set before on that link.
    public func setLoss(_ loss: Loss?, on link: Link, toward address: String) throws {
        _ = try? Self.run(["ip", "netns", "exec", link.namespace, "nft", "delete", "table", "inet", Self.lossTable])
        guard let loss else { return }
        let match: String
        switch loss {
        case .random(let perMille): match = "numgen random mod 1000 < \(perMille)"
        case .burst(let length, let period): match = "numgen inc mod \(period) < \(length)"
        case .seeded(let perMille, let seed):
            let positions = Loss.seededPositions(perMille: perMille, seed: seed)
            guard !positions.isEmpty else { return }
            match = "numgen inc mod 1000 { " + positions.map(String.init).joined(separator: ", ") + " }"
        }
        let rules = """
            table inet \(Self.lossTable) {
              chain out {
                type filter hook output priority 0;
                ip daddr \(address) meta l4proto udp \(match) counter drop
              }
            }
            """
        try Self.run(["ip", "netns", "exec", link.namespace, "nft", "-f", "-"], input: rules)
    }

    /// Datagrams the loss rule of `link` has dropped so far (0 without one).
    public func lostDatagrams(_ link: Link) -> Int {
        let listing = (try? Self.run(["ip", "netns", "exec", link.namespace, "nft", "list", "table", "inet", Self.lossTable])) ?? ""
        guard let range = listing.range(of: "counter packets ") else { return 0 }
        return Int(listing[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    static let lossTable = "srtclab_loss"
}
