#if canImport(Glibc)
import Glibc
private let posixListen = Glibc.listen
private let posixConnect = Glibc.connect
private let posixAccept = Glibc.accept
private let posixClose = Glibc.close
#elseif canImport(Darwin)
import Darwin
private let posixListen = Darwin.listen
private let posixConnect = Darwin.connect
private let posixAccept = Darwin.accept
private let posixClose = Darwin.close
#endif
import RTCMedia
import Synchronization

/// A Unix stream socket of the broadcast stream: the host app listens on a path in a directory
/// both processes can reach (iOS: the App Group's container), the extension connects. POSIX only,
/// so the same code runs (and is tested) on Linux.
final class BroadcastSocket: Sendable {
    /// -1 once closed.
    private let descriptor: Atomic<Int32>

    private init(fd: Int32) {
        descriptor = Atomic(fd)
    }

    deinit { close() }

    var fd: Int32 { descriptor.load(ordering: .acquiring) }

    /// Closes the socket now rather than when the last reference goes: a closed listener refuses
    /// connections at once (an open one would queue them with nobody to serve them).
    func close() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { _ = posixClose(fd) }
    }

    /// Listens on `path` (a stale socket file left there is replaced).
    /// - Throws: `.systemError` when the path is too long or cannot be bound.
    static func listen(path: String) throws(SRTCError) -> BroadcastSocket {
        let socket = try BroadcastSocket(fd: make())
        unlink(path)
        guard withAddress(path, { bind(socket.fd, $0, $1) }) == 0, posixListen(socket.fd, 1) == 0 else {
            throw .systemError("broadcast socket \(path): \(String(cString: strerror(errno)))")
        }
        return socket
    }

    /// Connects to the host listening on `path`.
    /// - Throws: `.connectionFailed` when nobody listens there.
    static func connect(path: String) throws(SRTCError) -> BroadcastSocket {
        let socket = try BroadcastSocket(fd: make())
        guard withAddress(path, { posixConnect(socket.fd, $0, $1) }) == 0 else {
            throw .connectionFailed("broadcast socket \(path): \(String(cString: strerror(errno)))")
        }
        return socket
    }

    /// The next connection, or nil when none came within `timeoutMs`.
    func accept(timeoutMs: Int32) -> BroadcastSocket? {
        guard wait(timeoutMs: timeoutMs) else { return nil }
        let client = posixAccept(fd, nil, nil)
        return client >= 0 ? BroadcastSocket(fd: client) : nil
    }

    /// Whether bytes (or the end) can be read within `timeoutMs`.
    func wait(timeoutMs: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, timeoutMs) > 0
    }

    /// Reads what is there into `buffer`; 0 at the end of the stream, negative on an error.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        recv(fd, buffer.baseAddress, buffer.count, 0)
    }

    /// Writes all of `bytes`.
    /// - Returns: false when the other side is gone.
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Self.noSignal) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    // MARK: - Internals

    #if os(Linux)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0
    #endif

    private static func make() throws(SRTCError) -> Int32 {
        #if os(Linux)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .systemError("no socket: \(String(cString: strerror(errno)))") }
        #if !os(Linux)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    /// Calls `body` with `path` as a `sockaddr_un`; -1 when the path does not fit.
    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return -1 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
