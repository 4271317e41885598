import Foundation
import Glibc
import Testing
@testable import SRTCLoad

/// The capacity search's kernel counter: its reading of `nft -j` output, and (as root with nft)
/// what a real table counts, drops and lets through on loopback.
struct KernelPacketCounterTests {
    @Test func countersOfItsOwnTableAreReadByPort() throws {
        // The shape nft 1.0.6 prints for `nft -j list counters table netdev T`, with a warning line
        // before it, another table's counter and a counter that is not a port's.
        let text = """
            Warning: something the user should know
            {"nftables": [{"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}}, \
            {"counter": {"family": "netdev", "name": "p5000", "table": "srtc_load_1_1", "handle": 2, "packets": 3, "bytes": 390}}, \
            {"counter": {"family": "netdev", "name": "p65535", "table": "srtc_load_1_1", "handle": 3, "packets": 12345678901, "bytes": 0}}, \
            {"counter": {"family": "netdev", "name": "p5001", "table": "other", "handle": 4, "packets": 7, "bytes": 70}}, \
            {"counter": {"family": "netdev", "name": "total", "table": "srtc_load_1_1", "handle": 5, "packets": 9, "bytes": 90}}]}
            """
        let counts = try KernelPacketCounter.parseCounters(text, table: "srtc_load_1_1")
        #expect(counts == [5000: .init(packets: 3, bytes: 390), 65535: .init(packets: 12_345_678_901, bytes: 0)])
        #expect(try KernelPacketCounter.parseCounters(#"{"nftables": [{"metainfo": {}}]}"#, table: "t").isEmpty)
    }

    @Test(arguments: ["Error: No such file or directory", "", "{\"other\": []}"])
    func textThatIsNotACounterListIsRefused(text: String) {
        #expect(throws: LoadError.self) { try KernelPacketCounter.parseCounters(text, table: "t") }
    }

    @Test func onlyThisTypesTablesNameAnOwner() {
        #expect(KernelPacketCounter.ownerPID(ofTable: "srtc_load_4242_3") == 4242)
        #expect(KernelPacketCounter.ownerPID(ofTable: "srtc_icetcp") == nil)
        #expect(KernelPacketCounter.ownerPID(ofTable: "srtc_load_x_3") == nil)
    }

    /// A real table on loopback: RTP to a listed port is counted and never reaches the socket,
    /// RTCP is dropped uncounted, STUN and DTLS reach the socket, and another port is untouched.
    @Test(.enabled(if: KernelPacketCounter.isAvailable, "needs root and nft"), arguments: KernelPacketCounter.Hook.allCases)
    func rtpIsCountedAndDroppedWhileSTUNAndDTLSGetThrough(hook: KernelPacketCounter.Hook) throws {
        let counted = try UDPSocketPair(), other = try UDPSocketPair()
        let counter = try KernelPacketCounter(hook: hook)
        defer { counter.remove() }
        try counter.add(ports: [counted.port])
        let rtp = [0x80, 96] + [UInt8](repeating: 1, count: 98)       // 100 bytes
        let rtcp = [0x81, 201] + [UInt8](repeating: 2, count: 30)      // a receiver report
        let stun = [0x00, 0x01] + [UInt8](repeating: 3, count: 18)
        let dtls = [22, 254] + [UInt8](repeating: 4, count: 11)
        for _ in 0..<3 { for datagram in [rtp, rtcp, stun, dtls] { counted.send(datagram); other.send(datagram) } }
        let arrived = counted.receiveAll().map { $0.first! }
        #expect(arrived.sorted() == [0x00, 0x00, 0x00, 22, 22, 22])
        #expect(other.receiveAll().count == 12)
        let counts = try counter.read()
        #expect(counts == [counted.port: .init(packets: 3, bytes: 3 * (20 + 8 + 100))])
        counter.remove()
        counted.send(rtp)
        #expect(counted.receiveAll().map { $0.count } == [100])
    }
}

/// A UDP socket on 127.0.0.1 and a sender to it.
private final class UDPSocketPair {
    let receiver: Int32
    let sender: Int32
    let port: UInt16

    init() throws {
        let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        let sender = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.receiver = receiver
        self.sender = sender
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) == 0 && getsockname(receiver, $0, &length) == 0 }
        }
        guard bound else { throw LoadError.setup("cannot bind a UDP socket") }
        port = UInt16(bigEndian: address.sin_port)
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(sender, $0, length) } }
    }

    deinit {
        close(receiver)
        close(sender)
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(sender, $0.baseAddress, $0.count, 0) }
    }

    /// Every datagram that arrives until none has for 200 ms.
    func receiveAll() -> [[UInt8]] {
        var result: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return result }
            result.append(Array(buffer[..<n]))
        }
    }
}
