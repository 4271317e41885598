#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address with a port, stored inline (no allocation) so it can key per-packet maps.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// Address family.
    public enum Family: UInt8, Sendable { case ipv4, ipv6 }

    public let family: Family
    /// Address bytes in network order: the first 4 for IPv4, all 16 for IPv6.
    public let high: UInt64
    public let low: UInt64
    /// Port in host order.
    public let port: UInt16

    /// An IPv4 address from its four bytes in network order.
    public init(ipv4 bytes: (UInt8, UInt8, UInt8, UInt8), port: UInt16) {
        family = .ipv4
        high = UInt64(bytes.0) << 56 | UInt64(bytes.1) << 48 | UInt64(bytes.2) << 40 | UInt64(bytes.3) << 32
        low = 0
        self.port = port
    }

    /// An IPv6 address from its sixteen bytes in network order.
    public init(ipv6 bytes: [UInt8], port: UInt16) {
        precondition(bytes.count == 16)
        family = .ipv6
        var h: UInt64 = 0, l: UInt64 = 0
        for i in 0..<8 { h = h << 8 | UInt64(bytes[i]) }
        for i in 8..<16 { l = l << 8 | UInt64(bytes[i]) }
        high = h; low = l
        self.port = port
    }

    /// Parses a numeric IPv4 or IPv6 address (no DNS); `nil` when `host` is not one.
    public init?(ip host: String, port: UInt16) {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            let b = withUnsafeBytes(of: v4) { Array($0) }
            self.init(ipv4: (b[0], b[1], b[2], b[3]), port: port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            self.init(ipv6: withUnsafeBytes(of: v6) { Array($0) }, port: port)
            return
        }
        return nil
    }

    /// Resolves `host` (a name or a numeric address) with `getaddrinfo`, preferring IPv4.
    public static func resolve(host: String, port: UInt16) throws(NetError) -> SocketAddress {
        if let numeric = SocketAddress(ip: host, port: port) { return numeric }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &result)
        guard rc == 0, let first = result else { throw .resolveFailed(host) }
        defer { freeaddrinfo(result) }
        var best: SocketAddress?
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if let addr = n.pointee.ai_addr, let parsed = SocketAddress(sockaddr: addr) {
                let withPort = parsed.with(port: port)
                if withPort.family == .ipv4 { return withPort }
                if best == nil { best = withPort }
            }
            node = n.pointee.ai_next
        }
        guard let found = best else { throw .resolveFailed(host) }
        return found
    }

    /// Reads a `sockaddr_in` / `sockaddr_in6`; `nil` for other families.
    public init?(sockaddr pointer: UnsafePointer<sockaddr>) {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in.self)
            let b = withUnsafeBytes(of: sin.sin_addr) { ($0[0], $0[1], $0[2], $0[3]) }
            self.init(ipv4: b, port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }
            self.init(ipv6: bytes, port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }

    /// The same address with another port.
    public func with(port: UInt16) -> SocketAddress {
        var copy = self
        copy = SocketAddress(family: family, high: high, low: low, port: port)
        return copy
    }

    private init(family: Family, high: UInt64, low: UInt64, port: UInt16) {
        self.family = family; self.high = high; self.low = low; self.port = port
    }

    /// Writes this address into `storage` and returns the length to pass to the socket call.
    @inline(__always)
    public func write(to storage: UnsafeMutablePointer<sockaddr_storage>) -> socklen_t {
        let raw = UnsafeMutableRawPointer(storage)
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr.s_addr = UInt32(truncatingIfNeeded: high >> 32).bigEndian
            raw.storeBytes(of: sin, as: sockaddr_in.self)
            return socklen_t(MemoryLayout<sockaddr_in>.size)
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { out in
                for i in 0..<8 { out[i] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * i)) }
                for i in 0..<8 { out[8 + i] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * i)) }
            }
            raw.storeBytes(of: sin6, as: sockaddr_in6.self)
            return socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
    }

    /// Calls `body` with this address as a `sockaddr` pointer and its length.
    public func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        var storage = sockaddr_storage()
        let length = write(to: &storage)
        return try withUnsafePointer(to: &storage) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }

    /// The address bytes in network order (4 or 16).
    public var addressBytes: [UInt8] {
        var out = [UInt8]()
        let count = family == .ipv4 ? 4 : 16
        for i in 0..<min(count, 8) { out.append(UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * i))) }
        if count == 16 { for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * i))) } }
        return out
    }

    /// The address alone, as `inet_ntop` prints it.
    public var ipString: String {
        var buffer = [CChar](repeating: 0, count: 64)
        var bytes = addressBytes
        let af = family == .ipv4 ? AF_INET : AF_INET6
        _ = inet_ntop(af, &bytes, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `ip:port`, or `[ip]:port` for IPv6.
    public var description: String {
        family == .ipv4 ? "\(ipString):\(port)" : "[\(ipString)]:\(port)"
    }

    /// `true` for 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        family == .ipv4 ? (high >> 56) == 127 : (high == 0 && low == 1)
    }
}
