#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes an event loop blocked in its poller from another thread: an eventfd on Linux, a pipe elsewhere.
final class Wakeup: Sendable {
    /// The descriptor the loop polls for readability.
    let readFD: Int32
    private let writeFD: Int32

    init() throws(NetError) {
        #if os(Linux)
        let fd = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard fd >= 0 else { throw .system(call: "eventfd", errno: errno) }
        readFD = fd
        writeFD = fd
        #else
        var pair: [Int32] = [0, 0]
        guard pipe(&pair) == 0 else { throw .system(call: "pipe", errno: errno) }
        try Sockets.setNonBlocking(pair[0])
        try Sockets.setNonBlocking(pair[1])
        readFD = pair[0]
        writeFD = pair[1]
        #endif
    }

    /// Makes the read side readable (safe from any thread).
    func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { raw in
            #if os(Linux)
            Glibc.write(writeFD, raw.baseAddress, 8)
            #else
            Darwin.write(writeFD, raw.baseAddress, 1)
            #endif
        }
    }

    /// Clears the readable state (loop thread).
    func drain() {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &scratch) { raw in
            #if os(Linux)
            _ = Glibc.read(readFD, raw.baseAddress, 8)
            #else
            while Darwin.read(readFD, raw.baseAddress, raw.count) > 0 {}
            #endif
        }
    }

    func close() {
        Sockets.close(readFD)
        if writeFD != readFD { Sockets.close(writeFD) }
    }
}
