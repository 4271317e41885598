import Foundation
import Testing
import RTCNet
import SRTCProtocol
import SRTCTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What only a real `srtc-server` process shows: its descriptor limit, how it holds up when
/// descriptors run out, and what a join costs it after the user left (issue #15).
@Suite(.serialized) struct ServerProcessLimitTests {
    static let app = (id: "app_limits", key: "key_limits_0123456789")

    private func token(uid: String, channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.app.id, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: true, subscribe: true, publishData: true)),
                                key: Self.app.key)
    }

    private func server(_ arguments: [String] = [], openFileLimit: (Int, Int)? = nil) -> ServerProcess {
        ServerProcess(arguments: arguments, environment: ["SRTC_APP_ID": Self.app.id, "SRTC_APP_KEY": Self.app.key],
                      openFileLimit: openFileLimit.map { (soft: $0.0, hard: $0.1) })
    }

    /// The soft and hard "Max open files" of a process.
    private func openFileLimits(_ pid: Int32) throws -> (Int, Int) {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        return (numbers[0], numbers[1])
    }

    @Test func theServerRaisesItsSoftDescriptorLimitToTheHardOne() async throws {
        let process = server(openFileLimit: (256, 4096))
        defer { process.removeData() }
        try await process.start()
        let pid = try #require(process.pid)
        let limits = try openFileLimits(pid)
        #expect(limits.0 == 4096 && limits.1 == 4096, "soft \(limits.0), hard \(limits.1)")
        await process.stop()
    }

    @Test func idleSocketsCannotStarveHealthOrTheAPI() async throws {
        // A descriptor limit the server cannot raise, and a client holding more idle sockets than it.
        let process = server(openFileLimit: (256, 256))
        defer { process.removeData() }
        try await process.start()
        let address = try SocketAddress.resolve(host: "127.0.0.1", port: process.httpPort)
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<400 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { break }
            _ = address.withSockAddr { connect(fd, $0, $1) }
            idle.append(fd)
        }
        #expect(idle.count == 400)
        // Health and a signed grant are still answered, promptly (a timeout here is the failure).
        let health = try await HTTPClient().get(process.httpBase + "/healthz", timeout: .seconds(5))
        #expect(health.status == 200)
        let (status, body) = try await SignedCall.post(process.httpBase, "/server/v1/channel/grant", ["channel": "c", "uid": "u"],
                                                       appId: Self.app.id, appKey: Self.app.key, timeout: .seconds(5))
        #expect(status == 200 && body["token"] is String)
        #expect(process.log.contains("allows"))  // it said the limit lowered its connection count
        await process.stop()
    }

    @Test func aJoinKeepsNoMemoryOnceTheUserLeft() async throws {
        let process = server(["--joins-per-second", "100000", "--user-joins-per-second", "0", "--address-joins-per-second", "0"])
        defer { process.removeData() }
        try await process.start()
        let anchor = try await TestSignalClient(url: process.wsURL)
        _ = try await anchor.join(token: token(uid: "anchor", channel: "memory"))
        // Ten visitors at a time, each joining with an hour-long token and leaving.
        func cycles(_ range: Range<Int>) async throws {
            for batch in stride(from: range.lowerBound, to: range.upperBound, by: 10) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in batch ..< min(batch + 10, range.upperBound) {
                        group.addTask {
                            let visitor = try await TestSignalClient(url: process.wsURL)
                            _ = try await visitor.join(token: token(uid: "v\(i)", channel: "memory"))
                            #expect(try await visitor.request(.leave) == .success(.empty))
                            _ = await visitor.socket.closed()
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
        try await cycles(0..<500)  // warm-up: caches, arenas, the room's dictionaries
        let before = try #require(process.stats)
        try await cycles(500..<3500)
        let after = try #require(process.stats)
        // Each join's hour-long expiry timer once stayed until the hour passed (here: 2.5 MB over
        // these 3,000 joins). Now a join that ended leaves nothing behind.
        let growth = after.rssBytes - before.rssBytes
        #expect(growth < 1_000_000, "RSS grew \(growth) bytes over 3,000 join/leave cycles")
        #expect(after.descriptors <= before.descriptors + 4)
        await process.stop()
    }
}
