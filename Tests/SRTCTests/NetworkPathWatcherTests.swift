import RTCNet
import Testing
@testable import SRTCCore

/// `NetworkPathWatcher`: which of the channel's paths moved to another local address.
@Suite struct NetworkPathWatcherTests {
    static let server = SocketAddress(ip: "10.1.0.1", port: 0)!
    static let otherServer = SocketAddress(ip: "10.1.0.9", port: 0)!
    static let wifi = SocketAddress(ip: "192.168.1.20", port: 0)!
    static let cellular = SocketAddress(ip: "100.64.3.7", port: 0)!

    /// `observe` through an `inout` (a mutating call cannot sit inside `#expect`).
    private func moved(_ watcher: inout NetworkPathWatcher, _ path: NetworkPathWatcher.Path, remote: SocketAddress?,
                       local: SocketAddress?) -> Bool {
        watcher.observe(path, remote: remote, local: local)
    }

    @Test func aPathMovesWhenTheLocalAddressTowardTheSameServerChanges() {
        var watcher = NetworkPathWatcher()
        #expect(!moved(&watcher, .publish, remote: Self.server, local: Self.wifi))  // first look
        #expect(!moved(&watcher, .publish, remote: Self.server, local: Self.wifi))
        #expect(moved(&watcher, .publish, remote: Self.server, local: Self.cellular))
        #expect(!moved(&watcher, .publish, remote: Self.server, local: Self.cellular))  // reported once
    }

    @Test func noRouteChangesNothingSoALinkThatComesBackWithItsAddressNeedsNothing() {
        var watcher = NetworkPathWatcher()
        _ = watcher.observe(.signaling, remote: Self.server, local: Self.wifi)
        #expect(!moved(&watcher, .signaling, remote: Self.server, local: nil))  // link down
        #expect(!moved(&watcher, .signaling, remote: Self.server, local: Self.wifi))  // back, same address
        // The old address went before the new one came: the move is seen when the new one is.
        #expect(!moved(&watcher, .signaling, remote: Self.server, local: nil))
        #expect(moved(&watcher, .signaling, remote: Self.server, local: Self.cellular))
    }

    @Test func anotherServerAddressOrAPathNotInUseStartsAfresh() {
        var watcher = NetworkPathWatcher()
        _ = watcher.observe(.subscribe, remote: Self.server, local: Self.wifi)
        // A resume on another node: its first look is not a move.
        #expect(!moved(&watcher, .subscribe, remote: Self.otherServer, local: Self.cellular))
        #expect(!moved(&watcher, .subscribe, remote: nil, local: nil))  // transport closed
        #expect(!moved(&watcher, .subscribe, remote: Self.otherServer, local: Self.wifi))
    }

    @Test func eachPathIsWatchedOnItsOwn() {
        var watcher = NetworkPathWatcher()
        _ = watcher.observe(.signaling, remote: Self.server, local: Self.wifi)
        _ = watcher.observe(.publish, remote: Self.server, local: Self.wifi)
        #expect(moved(&watcher, .signaling, remote: Self.server, local: Self.cellular))
        #expect(moved(&watcher, .publish, remote: Self.server, local: Self.cellular))
        #expect(!moved(&watcher, .subscribe, remote: Self.server, local: Self.cellular))
    }
}
