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
        // Sockets first (opening one is the slow part), so the joins themselves come in a burst.
        var sockets: [TestSignalClient] = []
        for _ in 0..<30 { sockets.append(try await TestSignalClient(url: server.wsURL)) }
        var loop: [APIErrorCode?] = []
        let started = ContinuousClock.now
        for c in sockets {
            loop.append(try await c.request(.join(JoinRequest(token: server.token(uid: "looper", channel: "busy")))).errorCode)
        }
        let elapsed = ContinuousClock.now - started
        // The looping uid gets its burst, then only what its bucket refilled meanwhile (1/s: a
        // bound from the time the loop really took, so a slow machine cannot make this flaky)...
        let burst = ChannelLimits.userJoinBurstSeconds * ChannelLimits().userJoinsPerSecond
        let refilled = Int((Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18).rounded(.up))
        #expect(loop.prefix(burst).allSatisfy { $0 == nil })
        #expect(loop.filter { $0 == nil }.count <= burst + refilled, "\(loop) in \(elapsed)")
        #expect(loop.allSatisfy { $0 == nil || $0 == .rateLimited })
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
        var sockets: [TestSignalClient] = []
        for _ in 0..<7 { sockets.append(try await TestSignalClient(url: server.wsURL)) }
        var results: [APIErrorCode?] = []
        let started = ContinuousClock.now
        for (i, c) in sockets.prefix(6).enumerated() {
            results.append(try await c.request(.join(JoinRequest(token: server.token(uid: "u\(i)", channel: "c\(i)")))).errorCode)
        }
        // Refused before the token is even read: a bad token is refused the same way.
        let bad = try await sockets[6].request(.join(JoinRequest(token: "not-a-token"))).errorCode
        let elapsed = ContinuousClock.now - started
        #expect(results.prefix(3).allSatisfy { $0 == nil })
        // The bucket refills 3 per second: bounds from the time the joins really took.
        let refilled = Int((3 * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)).rounded(.up))
        #expect(results.filter { $0 == nil }.count <= 3 + refilled, "\(results) in \(elapsed)")
        if refilled < 1 {
            #expect(results.suffix(3).allSatisfy { $0 == .rateLimited })
            #expect(bad == .rateLimited)
        } else {
            #expect(bad == .rateLimited || bad == .invalidToken)
        }
        await server.stop()
    }

    @Test func aTokenAcceptedWithinTheLeewayIsNotEndedOnArrival() async throws {
        let leeway: Int64 = 6
        let server = try TestServer { $0.limits.tokenLeewaySeconds = leeway }
        let client = try await TestSignalClient(url: server.wsURL)
        // Expired one second ago by the server's clock: within the leeway, so accepted...
        let token = server.token(uid: "skewed", channel: "leeway", lifetime: -1)
        let exp = try AccessToken.decodeUnverified(token).exp
        _ = try await client.join(token: token)
        // ...and not ended the moment it arrived (it once was) but when the leeway is over: the
        // end comes no earlier than exp + leeway, however long the join took.
        let told = try await client.event { if case .disconnected(let d) = $0 { return d }; return nil }
        let endedAt = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(told.reason == .tokenExpired)
        #expect(endedAt >= (exp + leeway) * 1000, "ended at \(endedAt), exp \(exp)")
        // Past the leeway the token is refused outright.
        let late = try await TestSignalClient(url: server.wsURL)
        #expect(try await late.request(.join(JoinRequest(token: server.token(uid: "late", channel: "leeway", lifetime: -10)))).errorCode == .tokenExpired)
        await server.stop()
    }

    /// The join deadline bounds the wait for the client's `join`, not the server's work on it: a
    /// join that waited its turn in a busy room was once closed at the deadline, unanswered.
    @Test func aJoinSentInTimeIsAnsweredHoweverLongTheRoomTakes() async throws {
        let server = try TestServer { $0.limits.joinTimeoutSeconds = 1 }
        let anchor = try await TestSignalClient(url: server.wsURL)
        _ = try await anchor.join(token: server.token(uid: "anchor", channel: "busy-room"))
        let room = try #require(server.app.channels.existingRoom(ChannelKey(appId: TestServer.appId, name: "busy-room")))
        // The room is busy for three times the deadline.
        let posted = room.inbox.post(job: { _ in try? await Task.sleep(for: .seconds(3)) })
        #expect(posted)
        let visitor = try await TestSignalClient(url: server.wsURL)
        let joined = try await visitor.join(token: server.token(uid: "visitor", channel: "busy-room"))
        #expect(joined.users.map(\.uid) == ["anchor"])
        #expect(visitor.socket.closeInfo == nil)
        // A socket that never sends `join` is still closed at the deadline.
        let silent = try await TestSignalClient(url: server.wsURL)
        let closed = await silent.socket.closed()
        #expect(closed.code == .policyViolation)
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
