import Testing
@testable import RTCNet

/// `RouteLookup`: the kernel's answer for which local address reaches a peer, nothing sent.
@Suite struct RouteLookupTests {
    @Test func loopbackIsReachedFromLoopback() {
        let local = RouteLookup.sourceAddress(toward: SocketAddress(ip: "127.0.0.1", port: 7881)!)
        #expect(local?.ipString == "127.0.0.1")
        #expect(local?.port == 0)
    }

    @Test func aPortOfZeroIsLookedUpByItsAddress() {
        #expect(RouteLookup.sourceAddress(toward: SocketAddress(ip: "127.0.0.2", port: 0)!)?.ipString == "127.0.0.1")
    }

    @Test func anAddressFamilyWithoutARouteHasNoAnswer() {
        // No IPv6 route to a documentation address (RFC 3849) on a test machine; where one exists, an address.
        let local = RouteLookup.sourceAddress(toward: SocketAddress(ip: "2001:db8::1", port: 443)!)
        #expect(local == nil || local?.family == .ipv6)
    }
}
