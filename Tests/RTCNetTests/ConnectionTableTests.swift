import Testing
@testable import RTCNet

/// A connection whose idleness the test sets (0: busy).
private final class FakeConnection {
    var idleSince: UInt64
    init(idleSince: UInt64) { self.idleSince = idleSince }
}

@Suite struct ConnectionTableTests {
    let a1 = SocketAddress(ipv4: (10, 0, 0, 1), port: 1000)
    let a2 = SocketAddress(ipv4: (10, 0, 0, 1), port: 2000)  // same IP, another port
    let b = SocketAddress(ipv4: (10, 0, 0, 2), port: 1000)

    private func table(_ max: Int, perAddress: Int, _ entries: [(Int, SocketAddress, UInt64)]) -> ConnectionTable<FakeConnection> {
        var t = ConnectionTable<FakeConnection>(maxConnections: max, maxPerAddress: perAddress)
        for (id, address, idle) in entries { t.insert(FakeConnection(idleSince: idle), id: id, address: address) }
        return t
    }

    @Test func underTheLimitsANewConnectionIsAdmitted() {
        let t = table(3, perAddress: 2, [(1, a1, 0)])
        #expect(t.decide(from: a2, idleSince: \.idleSince) == .admit(shedding: nil))
        #expect(t.decide(from: nil, idleSince: \.idleSince) == .admit(shedding: nil))
    }

    @Test func atTheLimitTheLongestIdleConnectionMakesRoom() {
        let t = table(3, perAddress: 0, [(1, a1, 500), (2, b, 0), (3, a2, 200)])
        #expect(t.decide(from: b, idleSince: \.idleSince) == .admit(shedding: 3))
    }

    @Test func atTheLimitWithNothingIdleTheNewConnectionIsRefused() {
        let t = table(2, perAddress: 0, [(1, a1, 0), (2, b, 0)])
        #expect(t.decide(from: b, idleSince: \.idleSince) == .refuse)
    }

    @Test func theAddressLimitShedsOnlyThatAddressesConnections() {
        // b's connection is idle longest, but the limit reached is a1's address: its own idle one goes.
        let t = table(100, perAddress: 2, [(1, b, 10), (2, a1, 0), (3, a2, 900)])
        #expect(t.count(from: a1) == 2)
        #expect(t.decide(from: a1, idleSince: \.idleSince) == .admit(shedding: 3))
        #expect(t.decide(from: b, idleSince: \.idleSince) == .admit(shedding: nil))
        let busy = table(100, perAddress: 2, [(1, b, 10), (2, a1, 0), (3, a2, 0)])
        #expect(busy.decide(from: a2, idleSince: \.idleSince) == .refuse)
    }

    @Test func removingForgetsTheAddressCount() {
        var t = table(100, perAddress: 1, [(1, a1, 0)])
        #expect(t.decide(from: a1, idleSince: \.idleSince) == .refuse)
        #expect(t.remove(1) != nil)
        #expect(t.remove(1) == nil)
        #expect(t.count(from: a1) == 0)
        #expect(t.decide(from: a1, idleSince: \.idleSince) == .admit(shedding: nil))
    }

    @Test func theConnectionLimitStaysWithinTheDescriptorLimit() {
        #expect(HTTPServer.connectionLimit(configured: 10_000, openFileLimit: 1024) == 1024 - HTTPServer.reservedDescriptors)
        #expect(HTTPServer.connectionLimit(configured: 10_000, openFileLimit: 1 << 20) == 10_000)
        #expect(HTTPServer.connectionLimit(configured: 10_000, openFileLimit: .max) == 10_000)
        #expect(HTTPServer.connectionLimit(configured: 10_000, openFileLimit: 64) == 16)  // a floor, not zero
        #expect(HTTPServer.connectionLimit(configured: 2, openFileLimit: 1024) == 2)
    }
}
