import Foundation
import Testing
import TestWait
import RTCNet
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport

/// What one careless or hostile client can do to the others, found by an abuse probe (issue #15).
@Suite(.serialized) struct AbuseTests {
    @Test func oneUsersJoinLoopDoesNotKeepOthersOut() async throws {
        // Everyone here shares 127.0.0.1: the per-address limit is another test's subject.
        let server = try TestServer { $0.limits.addressJoinsPerSecond = 0 }
        var loop: [APIErrorCode?] = []
        var sockets: [TestSignalClient] = []
        for _ in 0..<30 {
            let c = try await TestSignalClient(url: server.wsURL)
            sockets.append(c)
            loop.append(try await c.request(.join(JoinRequest(token: server.token(uid: "looper", channel: "busy")))).errorCode)
        }
        // The looping uid gets its burst, then is refused...
        #expect(loop.prefix(ChannelLimits.userJoinBurstSeconds).allSatisfy { $0 == nil })
        #expect(loop.filter { $0 == .rateLimited }.count >= 20)
        // ...and has not used up the channel's joins: other users still get in, every time.
        for i in 0..<5 {
            let other = try await TestSignalClient(url: server.wsURL)
            #expect(try await other.request(.join(JoinRequest(token: server.token(uid: "other\(i)", channel: "busy")))).isSuccess)
        }
        await server.stop()
    }

    @Test func aResumeIsNotAJoin() async throws {
        let server = try TestServer { $0.limits.userJoinsPerSecond = 1 }
        let first = try await TestSignalClient(url: server.wsURL)
        let token = server.token(uid: "flaky", channel: "resumes")
        let joined = try await first.join(token: token)
        // A flaky network: ten resumes in a row, each on a new socket, all accepted.
        for _ in 0..<10 {
            let again = try await TestSignalClient(url: server.wsURL)
            #expect(try await again.join(token: token, sessionId: joined.sessionId).resumed)
        }
        await server.stop()
    }

    @Test func joinsFromOneAddressAreLimitedAcrossChannels() async throws {
        let server = try TestServer { $0.limits.addressJoinsPerSecond = 3 }
        var results: [APIErrorCode?] = []
        for i in 0..<6 {
            let c = try await TestSignalClient(url: server.wsURL)
            results.append(try await c.request(.join(JoinRequest(token: server.token(uid: "u\(i)", channel: "c\(i)")))).errorCode)
        }
        #expect(results.prefix(3).allSatisfy { $0 == nil })
        #expect(results.contains(.rateLimited))
        // Refused before the token is even read: a bad token is refused the same way.
        let bad = try await TestSignalClient(url: server.wsURL)
        #expect(try await bad.request(.join(JoinRequest(token: "not-a-token"))).errorCode == .rateLimited)
        await server.stop()
    }

    @Test func aTokenAcceptedWithinTheLeewayIsNotEndedOnArrival() async throws {
        let server = try TestServer { $0.limits.tokenLeewaySeconds = 3 }
        let client = try await TestSignalClient(url: server.wsURL)
        // Expired one second ago by the server's clock: within the leeway, so accepted...
        _ = try await client.join(token: server.token(uid: "skewed", channel: "leeway", lifetime: -1))
        // ...and usable, not ended the moment it arrived...
        #expect(try await client.request(.ping).isSuccess)
        // ...until the leeway is over.
        let told = try await client.event(timeout: 8) { if case .disconnected(let d) = $0 { return d }; return nil }
        #expect(told.reason == .tokenExpired)
        // Past the leeway the token is refused outright.
        let late = try await TestSignalClient(url: server.wsURL)
        #expect(try await late.request(.join(JoinRequest(token: server.token(uid: "late", channel: "leeway", lifetime: -10)))).errorCode == .tokenExpired)
        await server.stop()
    }

    @Test func sessionsThatEndKeepNoTimers() async throws {
        let server = try TestServer {
            $0.limits.addressJoinsPerSecond = 0
            $0.limits.userJoinsPerSecond = 0
            $0.limits.joinsPerSecond = 10_000
        }
        let timers = server.app.channels.timers
        let anchor = try await TestSignalClient(url: server.wsURL)
        _ = try await anchor.join(token: server.token(uid: "anchor", channel: "timers"))
        let baseline = timers.pendingCount  // the anchor's token expiry and its socket's join deadline
        #expect(baseline == 2)
        for i in 0..<50 {
            let c = try await TestSignalClient(url: server.wsURL)
            _ = try await c.join(token: server.token(uid: "visitor\(i)", channel: "timers"))
            #expect(try await c.request(.leave) == .success(.empty))
            _ = await c.socket.closed()
        }
        // Each visitor's hour-long expiry timer went with the visitor, not an hour later (and its
        // socket's join deadline with the socket).
        try await eventually("the timers back at \(baseline), \(timers.pendingCount) pending") { timers.pendingCount == baseline }
        await server.stop()
    }
}
