import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay in front of the server's HTTP port, so a test can cut a client's signaling
/// connection the way a network failure would (both TCP sides closed, no WebSocket close frame)
/// and refuse new connections for a while. In front of several ports (a cluster's nodes) it is a
/// plain TCP load balancer: each connection goes to the next port in turn that accepts it.
public final class SDKTestProxy: Sendable {
    private let listener: Int32
    public let port: UInt16
    private let targets: [UInt16]
    private let state = Mutex(State())

    private struct State {
        var pairs: [(Int32, Int32)] = []
        var refusing = false
        var refused = 0
        var stopped = false
        var next = 0
    }

    public convenience init(to target: UInt16) throws {
        try self.init(to: [target])
    }

    public init(to targets: [UInt16]) throws {
        self.targets = targets
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The URL a client joins through.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Closes every relayed connection at once (both sides): the client sees its socket drop.
    public func dropAll() {
        let pairs = state.withLock { s -> [(Int32, Int32)] in defer { s.pairs = [] }; return s.pairs }
        for (a, b) in pairs {
            shutdown(a, Int32(SHUT_RDWR))
            shutdown(b, Int32(SHUT_RDWR))
        }
    }

    /// Connections refused so far.
    public var refusedCount: Int { state.withLock { $0.refused } }

    /// While refusing, new connections are accepted and closed at once.
    public func setRefusing(_ refusing: Bool) {
        state.withLock { $0.refusing = refusing }
    }

    public func stop() {
        state.withLock { $0.stopped = true }
        dropAll()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let (refusing, stopped) = state.withLock { ($0.refusing, $0.stopped) }
            if stopped { close(client); return }
            if refusing {
                close(client)
                state.withLock { $0.refused += 1 }
                continue
            }
            guard let upstream = connectToNextTarget() else { close(client); continue }
            state.withLock { $0.pairs.append((client, upstream)) }
            Thread.detachNewThread { Self.pump(from: client, to: upstream) }
            Thread.detachNewThread { Self.pump(from: upstream, to: client) }
        }
    }

    /// A connection to the first target, from the next in turn, that accepts one.
    private func connectToNextTarget() -> Int32? {
        let first = state.withLock { s -> Int in defer { s.next += 1 }; return s.next }
        for i in 0..<targets.count {
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targets[(first + i) % targets.count])
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 { return upstream }
            close(upstream)
        }
        return nil
    }

    /// Copies bytes until either side ends, then closes both.
    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            var offset = 0
            while offset < n {
                let sent = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + offset, n - offset, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { break }
                offset += sent
            }
            if offset < n { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
