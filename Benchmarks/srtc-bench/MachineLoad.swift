// What the whole machine did over a window of `sfu-load` (docs/benchmarks.md, "When the machine
// is overloaded"): the busy CPU of every core and the datagrams the kernel dropped because a UDP
// socket's receive buffer was full or nobody listened on their port. The server and the load generator share the cores, so a row
// that lost packets says which side ran out: a server that forwarded everything while the
// generator's sockets overflowed is not a server that failed.
import Foundation
import SRTC

struct MachineLoad {
    /// Busy and total CPU ticks of all cores together (`/proc/stat`, first line).
    var busyTicks: Int64 = 0
    var totalTicks: Int64 = 0
    /// Datagrams dropped at a full UDP receive buffer, any socket of the machine (`/proc/net/snmp`,
    /// `Udp: RcvbufErrors`): on loopback, the generator's subscriber sockets when its threads fall behind.
    var receiveBufferDrops: Int64 = 0
    /// Datagrams that arrived for a UDP port nobody listens on (`Udp: NoPorts`): on loopback, sent
    /// to a client socket that was already closed.
    var closedPortDrops: Int64 = 0

    static func now() -> MachineLoad {
        var load = MachineLoad()
        if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let ticks = ProcStatReader.systemTicks(stat: text) {
            load.busyTicks = ticks.busy
            load.totalTicks = ticks.total
        }
        if let text = try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8) {
            load.receiveBufferDrops = udpCounter("RcvbufErrors", snmp: text) ?? 0
            load.closedPortDrops = udpCounter("NoPorts", snmp: text) ?? 0
        }
        return load
    }

    /// The counter `name` of the `Udp:` lines (a line of names, then one of values).
    static func udpCounter(_ name: Substring, snmp text: String) -> Int64? {
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("Udp: ") }
        guard lines.count >= 2 else { return nil }
        let names = lines[0].split(separator: " "), values = lines[1].split(separator: " ")
        guard let index = names.firstIndex(of: name), index < values.count else { return nil }
        return Int64(values[index])
    }

    /// Cores busy on average between `earlier` and this reading (all processes).
    func busyCores(since earlier: MachineLoad, cores: Int) -> Double {
        let total = totalTicks - earlier.totalTicks
        return total > 0 ? Double(busyTicks - earlier.busyTicks) / Double(total) * Double(cores) : 0
    }
}
