import Foundation
import Processes
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The userspace link in the path (`LabRelay`): loss, loss in bursts, fixed delay and reordering,
// which this kernel has no netem for. The relay runs as `srtc-lab-relay` in the server's
// namespace; an nftables `redirect` there sends it the UDP that enters through the clients' veth
// for the server's media ports, and conntrack gives its answers the server's address and port
// back. So the clients keep the server's own ICE candidate, every datagram still crosses a veth,
// and the server sees each client flow from a port of the relay's, as behind a NAT (it is an
// ICE-lite server: the client's checks make that a peer-reflexive pair, RFC 8445 §7.3.1.3).

extension NetworkLab {
    /// A running `srtc-lab-relay` and its commands (`srtc-lab-relay`'s header says what they mean).
    public final class Relay: Sendable {
        /// Server port → the relay's listening port for it.
        public let ports: [UInt16: UInt16]
        private let process: ChildProcess
        private let lines = Mutex<[UInt8]>([])

        init(process: ChildProcess) throws {
            self.process = process
            let banner = try Self.readLine(process)
            guard banner.hasPrefix("relay ") else { throw Failure(description: "srtc-lab-relay: \(banner)") }
            var ports: [UInt16: UInt16] = [:]
            for pair in banner.dropFirst(6).split(separator: " ") {
                let numbers = pair.split(separator: "=").compactMap { UInt16($0) }
                if numbers.count == 2 { ports[numbers[0]] = numbers[1] }
            }
            self.ports = ports
        }

        /// Shapes what the server sends through the relay (`downlink`) and what the clients send
        /// it (`uplink`); nil passes a direction as it comes. Restarts the counters.
        public func shape(downlink: LinkShaper.Shape?, uplink: LinkShaper.Shape? = nil) throws {
            for (direction, shape) in [("down", downlink), ("up", uplink)] {
                let answer = try command("\(direction) \(Self.words(shape))")
                guard answer == "ok" else { throw Failure(description: "srtc-lab-relay \(direction): \(answer)") }
            }
        }

        /// What each direction's shapers did since the last `shape`, summed over the client flows.
        public func counters() throws -> (downlink: LabRelay.Counters, uplink: LabRelay.Counters, flows: Int) {
            struct Answer: Decodable { let downlink: LabRelay.Counters, uplink: LabRelay.Counters, flows: Int }
            let answer = try JSONDecoder().decode(Answer.self, from: Data(try command("stats").utf8))
            return (answer.downlink, answer.uplink, answer.flows)
        }

        /// Ends the relay (its standard input closes; SIGKILL if it lingers).
        public func stop() {
            try? process.input?.close()
            if process.isRunning { process.signal(SIGKILL) }
            _ = process.waitUntilExit()
        }

        /// A shape as the relay's command words.
        static func words(_ shape: LinkShaper.Shape?) -> String {
            guard let shape else { return "none" }
            var words = ["loss=\(shape.lossRate)", "delay=\(shape.delayMilliseconds)", "jitter=\(shape.jitterMilliseconds)",
                         "queue=\(shape.queueMilliseconds)", "rate=\(shape.bitrate ?? 0)"]
            if shape.burstLength > 0 { words.append("burst=\(shape.burstLength)/\(shape.burstPeriod)") }
            return words.joined(separator: " ")
        }

        private func command(_ line: String) throws -> String {
            try lines.withLock { _ in
                guard let input = process.input else { throw Failure(description: "srtc-lab-relay has no input") }
                try input.write(contentsOf: Data((line + "\n").utf8))
                return try Self.readLine(process)
            }
        }

        /// One line of the relay's output (it answers each command with one).
        private static func readLine(_ process: ChildProcess) throws -> String {
            guard let fd = process.output?.fileDescriptor else { throw Failure(description: "srtc-lab-relay has no output") }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while true {
                guard read(fd, &byte, 1) == 1 else { throw Failure(description: "srtc-lab-relay ended: \(String(decoding: line, as: UTF8.self))") }
                if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            }
        }
    }

    /// Starts `srtc-lab-relay` in `link`'s namespace for the server's media `ports` at
    /// `link.insideAddress`, and redirects to it the UDP for those ports that enters through
    /// `device` (default: the link's inside veth end, what clients in the lab's own namespace
    /// send through; a client namespace's `ClientLink.serverDevice` for its client), from
    /// `source` only when given (aimed at one client). Stopped with the lab's namespace, or by
    /// `Relay.stop()`.
    public func addRelay(on link: Link, serverPorts: [UInt16], device: String? = nil, source: String? = nil) throws -> Relay {
        let process = try ChildProcess("/usr/sbin/ip", ["netns", "exec", link.namespace, ServerProcess.builtBinary("srtc-lab-relay"),
                                                        "--server", link.insideAddress,
                                                        "--ports", serverPorts.map(String.init).joined(separator: ",")],
                                       pipeInput: true, pipeOutput: true)
        let relay: Relay
        do {
            relay = try Relay(process: process)
        } catch {
            process.signal(SIGKILL)
            throw error
        }
        relays.withLock { $0.append(relay) }
        let match = "iifname \"\(device ?? link.insideDevice)\"" + (source.map { " ip saddr \($0)" } ?? "")
        let rules = relay.ports.map { "    \(match) udp dport \($0.key) redirect to :\($0.value)" }.joined(separator: "\n")
        // Before conntrack's NAT decision (prerouting, dstnat): the first datagram of a flow decides it.
        try Self.run(["ip", "netns", "exec", link.namespace, "nft", "-f", "-"], input: """
            table ip srtclab_relay {
              chain prerouting {
                type nat hook prerouting priority -100;
            \(rules)
              }
            }

            """)
        return relay
    }
}
