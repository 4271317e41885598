import Foundation
import Processes
import Synchronization

/// Counts, and drops, in the kernel the RTP that reaches chosen local UDP ports: the receive side
/// of the capacity search's counting-only subscribers once their streams have started
/// (docs/benchmarks.md, "Capacity search"), so a delivered packet costs the load generator no
/// system call, no copy and no wake-up, only the counter's increment in the kernel.
///
/// One nftables table per counter (`srtc_load_<pid>_<n>`): a set of the ports, a map from port to
/// a named counter, and a chain of two rules. A datagram to a listed port whose first byte has
/// the RTP version bits (128–191: RTP or RTCP, RFC 7983 §7) is dropped; RTCP (second byte 192–223,
/// RFC 5761 §4) is dropped uncounted, RTP is counted on its port's counter. Everything else goes
/// on to the socket: STUN (first byte 0–3) keeps ICE consent freshness (RFC 7675) answered both
/// ways, so the server keeps the transport, and DTLS (20–63) keeps its alerts.
///
/// Where the rule sits decides what a dropped datagram still costs, and on loopback that cost is
/// charged to the sending server (its `sendmmsg` runs the receive path in its own softirq):
/// `.ingress` (the `lo` device's ingress hook, before IP input and conntrack) stops it earliest,
/// close to where a real NIC's transmit would end; `.input` (the inet input hook, after routing
/// and conntrack, before the UDP socket lookup) skips only the socket's queue and the reader's
/// wake-up.
// @unchecked Sendable: `ports` is a Mutex; the rest is immutable.
package final class KernelPacketCounter: @unchecked Sendable {
    package enum Hook: String, Sendable, CaseIterable {
        case ingress, input
    }

    /// What one port's counter holds. `bytes` are IP datagram lengths (IP and UDP headers and
    /// the SRTP tag included).
    package struct Counts: Sendable, Equatable {
        package var packets: Int
        package var bytes: Int
    }

    package let hook: Hook
    package let table: String
    private var family: String { hook == .ingress ? "netdev" : "inet" }
    private let ports = Mutex<Set<UInt16>>([])
    private static let serial = Atomic<Int>(0)
    private static let nftPath = ["/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Root and an `nft` binary: the counter can work (creating it still may fail).
    package static var isAvailable: Bool { getuid() == 0 && nftPath != nil }

    /// Creates the table (after removing tables of earlier load generators that are no longer
    /// running: a table left behind would keep dropping RTP to ports other programs now own).
    /// - Throws: `LoadError.setup` when `nft` is missing or refuses the table.
    package init(hook: Hook) throws {
        self.hook = hook
        table = "srtc_load_\(getpid())_\(Self.serial.add(1, ordering: .relaxed).newValue)"
        Self.removeStale()
        let chain = hook == .ingress
            ? "type filter hook ingress device \"lo\" priority -500;"
            : "type filter hook input priority -500;"
        // `@th,64,8` is the first byte after the UDP header, `@th,72,8` the second.
        try Self.nft(input: """
            table \(family) \(table) {
              set ports { type inet_service; }
              map rtp { type inet_service : counter; }
              chain receive {
                \(chain)
                udp dport @ports @th,64,8 & 0xc0 == 0x80 @th,72,8 192-223 drop
                udp dport @ports @th,64,8 & 0xc0 == 0x80 counter name udp dport map @rtp drop
              }
            }
            """)
    }

    /// From now on the RTP arriving at `newPorts` is counted and dropped here.
    package func add(ports newPorts: [UInt16]) throws {
        let fresh = ports.withLock { known in newPorts.filter { known.insert($0).inserted } }
        guard !fresh.isEmpty else { return }
        var script = fresh.map { "add counter \(family) \(table) \(Self.counterName($0))" }
        script.append("add element \(family) \(table) rtp { " + fresh.map { "\($0) : \"\(Self.counterName($0))\"" }.joined(separator: ", ") + " }")
        script.append("add element \(family) \(table) ports { " + fresh.map(String.init).joined(separator: ", ") + " }")
        try Self.nft(input: script.joined(separator: "\n") + "\n")
    }

    /// The ports counted so far.
    package var countedPorts: Set<UInt16> { ports.withLock { $0 } }

    /// Every counted port's counter now (one `nft -j list counters`). Blocks for the command (a
    /// few ms).
    package func read() throws -> [UInt16: Counts] {
        let output = try Self.nft(["-j", "list", "counters", "table", family, table])
        return try Self.parseCounters(output, table: table)
    }

    /// Deletes the table: the ports' datagrams reach their sockets again.
    package func remove() {
        _ = try? Self.nft(["delete", "table", family, table])
    }

    deinit { remove() }

    // MARK: - Parsing

    static func counterName(_ port: UInt16) -> String { "p\(port)" }

    /// The port counters of `table` in `nft -j list counters` output (libnftables JSON: an
    /// `nftables` array of objects, the `counter` ones with `table`, `name`, `packets`, `bytes`).
    /// Counters of other tables and names that are not a port's are left out.
    /// - Throws: `LoadError.setup` when the text is not that JSON.
    package static func parseCounters(_ text: String, table: String) throws -> [UInt16: Counts] {
        // `nft` may print a warning before the document.
        guard let start = text.firstIndex(of: "{"), let data = String(text[start...]).data(using: .utf8),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let items = root["nftables"] as? [Any] else {
            throw LoadError.setup("nft printed no JSON counter list: \(text.prefix(200))")
        }
        var counts: [UInt16: Counts] = [:]
        for case let item as [String: Any] in items {
            guard let counter = item["counter"] as? [String: Any], counter["table"] as? String == table,
                  let name = counter["name"] as? String, name.hasPrefix("p"), let port = UInt16(name.dropFirst()),
                  let packets = integer(counter["packets"]), let bytes = integer(counter["bytes"]) else { continue }
            counts[port] = Counts(packets: packets, bytes: bytes)
        }
        return counts
    }

    /// A JSON number as Foundation decoded it.
    private static func integer(_ value: Any?) -> Int? {
        (value as? Int) ?? (value as? NSNumber)?.intValue
    }

    /// The pid in a table name of this type, or nil for another table.
    package static func ownerPID(ofTable name: String) -> Int32? {
        let parts = name.split(separator: "_")
        guard parts.count == 4, parts[0] == "srtc", parts[1] == "load" else { return nil }
        return Int32(parts[2])
    }

    // MARK: - nft

    /// Deletes the tables of load generators that no longer run.
    private static func removeStale() {
        guard let listing = try? nft(["list", "tables"]) else { return }
        for line in listing.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 3, words[0] == "table", let pid = ownerPID(ofTable: String(words[2])) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { _ = try? nft(["delete", "table", String(words[1]), String(words[2])]) }
        }
    }

    @discardableResult
    private static func nft(_ arguments: [String] = ["-f", "-"], input: String? = nil) throws -> String {
        guard let nftPath else { throw LoadError.setup("no nft binary: kernel counting needs nftables") }
        let result: (status: Int32, output: String)
        do { result = try ChildProcess.run([nftPath] + arguments, input: input) } catch { throw LoadError.setup("nft: \(error)") }
        guard result.status == 0 else { throw LoadError.setup("nft \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.output)") }
        return result.output
    }
}
