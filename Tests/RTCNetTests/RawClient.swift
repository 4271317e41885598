#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import RTCNet
import TestWait

/// A blocking TCP client for tests: sends exact bytes and reads exact answers, with a receive
/// timeout so a server that never answers fails the test instead of hanging it. The blocking
/// calls run on a thread of their own: blocking the cooperative pool would starve the server's
/// Tasks, and Dispatch's global queue has only about one thread per core.
final class RawClient: @unchecked Sendable {
    let fd: Int32
    var buffer = ByteBuffer()
    private var isClosed = false

    init(port: UInt16, host: String = "127.0.0.1", timeout: Double = 10) throws {
        let address = try require_address(host: host, port: port)
        #if canImport(Glibc)
        fd = socket(address.family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(address.family == .ipv4 ? AF_INET : AF_INET6, SOCK_STREAM, 0)
        #endif
        var tv = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let rc = address.withSockAddr { connect(fd, $0, $1) }
        guard rc == 0 else {
            isClosed = true
            Glibc.close(fd)
            throw NetError.system(call: "connect", errno: errno)
        }
    }

    deinit { close() }

    /// Closes our socket (as a peer that is done would).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Sends everything; `false` when the server already closed (EPIPE / ECONNRESET).
    func sendNow(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ bytes: [UInt8]) async -> Bool { await blocking { $0.sendNow(bytes) } }

    @discardableResult
    func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    func fill() async -> Bool { await blocking { $0.fillNow() } }

    func readResponse(method: String = "GET") async -> HTTPResponse? { await blocking { $0.readResponseNow(method: method) } }

    func waitForClose() async -> Bool { await blocking { $0.waitForCloseNow() } }

    private func blocking<T: Sendable>(_ body: @escaping @Sendable (RawClient) -> T) async -> T {
        await onThread { body(self) }
    }

    /// Reads more bytes into `buffer`; `false` on EOF, error or timeout.
    func fillNow() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one complete response (or `nil` when the connection ends or times out first).
    func readResponseNow(method: String = "GET") -> HTTPResponse? {
        var parser = HTTPResponseParser(requestMethod: method)
        while true {
            if let response = try? parser.next(from: &buffer) { return response }
            if !fillNow() { return parser.finish() }
        }
    }

    /// `true` when the server closes the connection (EOF or reset) within the receive timeout,
    /// discarding whatever else arrives first.
    func waitForCloseNow() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { continue }
            if n == 0 { return true }
            return errno == ECONNRESET
        }
    }

    /// Half-closes our side.
    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }
}

func require_address(host: String, port: UInt16) throws -> SocketAddress {
    try SocketAddress.resolve(host: host, port: port)
}
