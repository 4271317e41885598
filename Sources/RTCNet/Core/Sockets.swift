#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the BSD socket calls the reactor needs, each turning `-1` into a
/// `NetError.system` that names the call. All sockets made here are non-blocking and close-on-exec.
enum Sockets {
    // MARK: - Creation

    /// A UDP socket of the address's family (blocking: `UDPSocket` makes it non-blocking once bound).
    static func udpSocket(for family: SocketAddress.Family) throws(NetError) -> Int32 {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        #if canImport(Glibc)
        let fd = socket(domain, Int32(SOCK_DGRAM.rawValue), 0)
        #else
        let fd = socket(domain, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        return fd
    }

    /// A non-blocking TCP socket of the address's family.
    static func tcpSocket(for family: SocketAddress.Family) throws(NetError) -> Int32 {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        #if os(Linux)
        let fd = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        #else
        let fd = socket(domain, SOCK_STREAM, 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        do {
            try setNonBlocking(fd)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        } catch {
            close(fd)
            throw error
        }
        #endif
        return fd
    }

    static func setNonBlocking(_ fd: Int32) throws(NetError) {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .system(call: "fcntl", errno: errno)
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Disables Nagle's algorithm: request/response traffic must not wait for delayed ACKs.
    static func setNoDelay(_ fd: Int32) {
        setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
    }

    // MARK: - Listening and accepting

    /// A listening socket bound to `address` (port 0 picks a free port).
    static func listen(on address: SocketAddress, backlog: Int32) throws(NetError) -> Int32 {
        let fd = try tcpSocket(for: address.family)
        setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let e = errno
            close(fd)
            throw .system(call: "bind", errno: e)
        }
        guard systemListen(fd, backlog) == 0 else {
            let e = errno
            close(fd)
            throw .system(call: "listen", errno: e)
        }
        return fd
    }

    /// Accepts one pending connection; `nil` when none is pending (EAGAIN) or it vanished.
    static func accept(_ listener: Int32) throws(NetError) -> (fd: Int32, remote: SocketAddress?)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa -> Int32 in
                #if canImport(Glibc)
                return Glibc.accept(listener, sa, &length)
                #else
                return Darwin.accept(listener, sa, &length)
                #endif
            }
        }
        if fd < 0 {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO: return nil
            default: throw .system(call: "accept", errno: errno)
            }
        }
        // accept4 would save this call, but it needs _GNU_SOURCE, whose fd_set clashes with Glibc's.
        do { try setNonBlocking(fd) } catch { close(fd); return nil }
        #if !os(Linux)
        setOption(fd, level: SOL_SOCKET, name: SO_NOSIGPIPE, value: 1)
        #endif
        let remote = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(sockaddr: $0) }
        }
        return (fd, remote)
    }

    /// The local address a socket is bound to.
    static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa -> SocketAddress? in
                guard getsockname(fd, sa, &length) == 0 else { return nil }
                return SocketAddress(sockaddr: UnsafePointer(sa))
            }
        }
    }

    // MARK: - Connecting

    /// Starts a non-blocking connect; `true` when it completed at once, `false` when in progress.
    static func startConnect(_ fd: Int32, to address: SocketAddress) throws(NetError) -> Bool {
        let rc = address.withSockAddr { connect(fd, $0, $1) }
        if rc == 0 { return true }
        if errno == EINPROGRESS || errno == EINTR { return false }
        throw .system(call: "connect", errno: errno)
    }

    /// The outcome of a finished non-blocking connect (`SO_ERROR`).
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    // MARK: - Data

    /// Outcome of one read or write attempt on a non-blocking socket.
    enum IOResult: Equatable {
        case processed(Int)
        case wouldBlock
        case endOfStream
        case failed(Int32)
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 { return .processed(n) }
            if n == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        while true {
            let n = send(fd, bytes.baseAddress, bytes.count, flags)
            if n >= 0 { return .processed(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}

#if canImport(Glibc)
@inline(__always) private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
#else
@inline(__always) private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
#endif
