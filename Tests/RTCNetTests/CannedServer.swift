#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import RTCNet
import TestWait

/// A one-connection blocking TCP server for client tests: accepts, reads the request head, and
/// answers with whatever `respond` returns for it (or nothing, to test timeouts). Runs on a
/// Dispatch thread so it never blocks the concurrency pool.
final class CannedServer: @unchecked Sendable {
    let listenFD: Int32
    let port: UInt16

    /// - Parameters:
    ///   - closeAfter: close the connection after answering (for read-until-close bodies).
    ///   - respond: bytes to send for the received head; `nil` sends nothing.
    init(closeAfter: Bool = true, respond: @escaping @Sendable (String) -> [UInt8]?) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let address = SocketAddress(ip: "127.0.0.1", port: 0)!
        guard address.withSockAddr({ bind(fd, $0, $1) }) == 0, listen(fd, 8) == 0 else {
            Glibc.close(fd)
            throw NetError.system(call: "bind", errno: errno)
        }
        listenFD = fd
        port = Sockets.localAddress(fd)?.port ?? 0
        Thread.detachNewThread {
            let conn = accept(fd, nil, nil)
            guard conn >= 0 else { return }
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while !head.reversed().starts(with: [0x0A, 0x0D, 0x0A, 0x0D]) {
                guard recv(conn, &byte, 1, 0) == 1 else { break }
                head.append(byte)
            }
            if let answer = respond(String(decoding: head, as: UTF8.self)) {
                _ = answer.withUnsafeBytes { send(conn, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if closeAfter {
                    Glibc.close(conn)
                    return
                }
            }
            // Hold the connection until the client goes away.
            var sink = [UInt8](repeating: 0, count: 1024)
            while recv(conn, &sink, sink.count, 0) > 0 {}
            Glibc.close(conn)
        }
    }

    deinit {
        // shutdown wakes the thread blocked in accept(); close alone would leave it listening.
        shutdown(listenFD, Int32(SHUT_RDWR))
        Glibc.close(listenFD)
    }
}

/// A loopback port nobody listens on: bound for a moment (never listening), then released.
func freePort() throws -> UInt16 { try freeLoopbackPort() }
