#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port the kernel says is free now, for a program that must be told its port before it binds
/// it (a child process started with a listening URL: benchmark servers, ingress listeners). The
/// caller binds it soon after; another program may take it in between, which the caller sees as
/// a failed bind.
public enum FreePort {
    /// A free TCP (`datagram` false) or UDP port on IPv4 `host` (`127.0.0.1`, `0.0.0.0`).
    public static func find(host: String = "127.0.0.1", datagram: Bool = false) throws(NetError) -> UInt16 {
        try bound(port: 0, host: host, datagram: datagram)
    }

    /// Whether `port` can be bound on `host` now.
    public static func isFree(_ port: UInt16, host: String = "127.0.0.1", datagram: Bool = false) -> Bool {
        (try? bound(port: port, host: host, datagram: datagram)) != nil
    }

    /// Binds `port` (0: the kernel's choice) and closes it; returns the port bound.
    private static func bound(port: UInt16, host: String, datagram: Bool) throws(NetError) -> UInt16 {
        #if canImport(Glibc)
        let type = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        #else
        let type = datagram ? SOCK_DGRAM : SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, type, 0)
        guard descriptor >= 0 else { throw NetError.system(call: "socket", errno: errno) }
        defer { close(descriptor) }
        // As a listener binds (libavformat's does): a port whose last connection is in TIME_WAIT is free.
        var one: Int32 = 1
        if !datagram { setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else { throw NetError.system(call: "bind", errno: errno) }
        return UInt16(bigEndian: address.sin_port)
    }
}
