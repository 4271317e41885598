import Foundation
import SMeetingProtocol
import SRTCServer
import SRTCTestSupport
import TestWait
import Testing
@testable import MeetingServer

/// The meeting WebSocket against issue 15's abuse findings: a member's entry loop is limited per
/// member (and keeps nobody else out), logins per address, and a session's grace timer costs
/// nothing once a resume cancelled it.
@Suite struct MeetingAbuseTests {
    static func module(_ server: TestServer) throws -> MeetingModule {
        try #require(server.app.modules.compactMap { $0 as? MeetingModule }.first)
    }

    /// Seconds in `duration`, rounded up: what a bucket refilled meanwhile (at 1 per second).
    static func secondsUp(_ duration: Duration) -> Int {
        Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up))
    }

    @Test func oneMembersEntryLoopIsLimitedAndKeepsNobodyOut() async throws {
        let server = try TestServer(modules: [MeetingModule.factory]) { $0.limits.userJoinsPerSecond = 1 }
        let (m, sockets) = try await hostedMeeting(["host", "loop", "bob"], MeetingCreateReq(title: "r"), on: server)
        let (host, loop, bob) = (sockets[0], sockets[1], sockets[2])
        let enter = MeetingEnterReq(meetingId: m.meetingId)
        // The burst (5 seconds' worth at 1 per second) goes in; the loop is then refused with
        // rate_limited, and what it was refused changed nothing.
        let burst = ChannelLimits.userJoinBurstSeconds
        var refused: MeetingErrorBody?
        let started = ContinuousClock.now
        var entries = 0
        while refused == nil, entries < 100 {
            let answer = try await loop.call(.enterRoom, enter)
            guard answer.ok else {
                refused = answer.error
                break
            }
            entries += 1
            #expect(try await loop.call(.exitRoom).ok)
        }
        let elapsed = ContinuousClock.now - started
        #expect(refused?.code == MeetingErrorCode.rateLimited.rawValue, "\(String(describing: refused))")
        // The burst, and at most what refilled while the loop ran (however slow the machine).
        #expect(entries >= burst && entries <= burst + Self.secondsUp(elapsed), "\(entries) entries in \(elapsed)")
        #expect(try await loop.call(.exitRoom).error?.code == MeetingErrorCode.notInMeeting.rawValue)
        // Someone else enters at once, and the host sees them.
        #expect(try await bob.call(.enterRoom, enter).ok)
        try await host.waitEvent(.userEntered, count: entries + 1)
        let records = try await server.call("/server/v1/meeting/attendance", ["meeting_id": m.meetingId]).1["records"] as? [[String: Any]]
        #expect(records?.filter { $0["uid"] as? String == "loop" }.count == entries)
        // Once its bucket refilled, the member enters again.
        try await eventually("the loop's allowance back") { try await loop.call(.enterRoom, enter).ok }
        for s in sockets { s.close() }
        await server.stop()
    }

    @Test func loginsFromOneAddressAreLimitedBeforeTheTokenIsRead() async throws {
        let server = try TestServer(modules: [MeetingModule.factory]) { $0.limits.addressJoinsPerSecond = 3 }
        // Sockets first (opening one is the slow part), so the logins come in a burst.
        var sockets: [MeetingTestSocket] = []
        for _ in 0..<8 { sockets.append(try await MeetingTestSocket(url: server.meetingURL)) }
        var answers: [Int?] = []
        let started = ContinuousClock.now
        for (i, s) in sockets.enumerated() {
            // Every other token is bad: refused as invalid while the address has allowance, as
            // rate_limited after (the token is not even read).
            let token = i.isMultiple(of: 2) ? server.memberToken(uid: "u\(i)") : "not-a-token"
            answers.append(try await s.call(.login, LoginReq(token: token)).error?.code)
        }
        let elapsed = ContinuousClock.now - started
        let limited = MeetingErrorCode.rateLimited.rawValue
        #expect(answers.prefix(3) == [nil, MeetingErrorCode.invalidToken.rawValue, nil])
        #expect(answers.allSatisfy { $0 == nil || $0 == MeetingErrorCode.invalidToken.rawValue || $0 == limited })
        // At most 3 at once, then 3 per second.
        #expect(answers.filter { $0 != limited }.count <= 3 + 3 * Self.secondsUp(elapsed), "\(answers) in \(elapsed)")
        // A refused login leaves the socket open: it logs in once the address has allowance again.
        let last = try #require(sockets.last)
        try await eventually("a login after the wait") { try await last.call(.login, LoginReq(token: server.memberToken(uid: "late"))).ok }
        for s in sockets { s.close() }
        await server.stop()
    }

    /// Each drop of a session's socket arms its grace timer and each resume cancels it; a
    /// cancelled timer is gone at once (a `Task.sleep` per drop stayed queued for the whole grace
    /// period, about 1.5 KB each). The session stays in its meeting throughout, and ends when a
    /// grace period runs out.
    @Test func aResumedSessionKeepsNoGraceTimer() async throws {
        let server = try TestServer(grace: 2, modules: [MeetingModule.factory])
        let timers = try Self.module(server).service.timers
        let (m, sockets) = try await hostedMeeting(["host"], MeetingCreateReq(title: "r"), on: server)
        let host = sockets[0]
        var socket = try await MeetingTestSocket(url: server.meetingURL)
        let first = try socket.data(LoginResp.self, try await socket.call(.login, LoginReq(token: server.memberToken(uid: "bob"))).text)
        #expect(first.resumed == false)
        #expect(try await socket.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok)
        let sessionId = first.sessionId
        for _ in 0..<20 {
            socket.close()
            try await eventually("the grace timer armed") { timers.pendingCount == 1 }
            socket = try await MeetingTestSocket(url: server.meetingURL)
            let resumed = try socket.data(LoginResp.self, try await socket.call(.login, LoginReq(token: server.memberToken(uid: "bob"),
                                                                                                  sessionId: sessionId, lastSeq: 0)).text)
            #expect(resumed.resumed)
            #expect(timers.pendingCount == 0)
        }
        #expect(!host.events.contains("user_exited"))
        // The last drop is not resumed: bob exits when its grace period ends.
        socket.close()
        let exited = try host.data(UserExitedEvent.self, try await host.waitEvent(.userExited))
        #expect(exited.user.uid == "bob" && exited.reason == .disconnected)
        #expect(timers.pendingCount == 0)
        host.close()
        await server.stop()
    }
}
