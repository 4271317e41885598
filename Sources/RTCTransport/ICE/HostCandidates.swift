#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RTCNet

extension ICECandidate {
    /// Host candidates for a socket bound to `bound`: the bound address itself when it is specific,
    /// otherwise every up, non-link-local interface address of that family (RFC 8445 §5.1.1.1).
    /// Loopback addresses are included only when no other address exists or `includeLoopback`.
    public static func hostCandidates(for bound: SocketAddress, includeLoopback: Bool = false) -> [ICECandidate] {
        let unspecified = bound.high == 0 && bound.low == 0
        guard unspecified else { return [ICECandidate(address: bound)] }
        var found: [SocketAddress] = []
        var loopback: [SocketAddress] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var node = list
        while let n = node {
            defer { node = n.pointee.ifa_next }
            guard let sa = n.pointee.ifa_addr, n.pointee.ifa_flags & UInt32(IFF_UP) != 0,
                  let address = SocketAddress(sockaddr: sa), address.family == bound.family else { continue }
            if address.family == .ipv6, address.high >> 48 == 0xFE80 { continue } // link-local
            let withPort = address.with(port: bound.port)
            if address.isLoopback { loopback.append(withPort) } else { found.append(withPort) }
        }
        let chosen = found.isEmpty || includeLoopback ? found + loopback : found
        return chosen.enumerated().map { index, address in
            // Earlier interfaces get a higher local preference.
            ICECandidate(foundation: String(index + 1),
                         priority: ICECandidate.priority(typePreference: 126, localPreference: UInt32(65535 - index)),
                         address: address)
        }
    }
}
