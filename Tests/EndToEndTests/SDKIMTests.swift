import Foundation
import IMServer
import SRTC
import SRTCProtocol
import SRTCTestSupport
import Testing

/// IM through the Swift SDK against the real server: messages, a whole call, storage for offline
/// users, resumption after a dropped connection, and the documented errors.
@Suite struct SDKIMTests {
    struct Client {
        let engine: SRTCEngine
        let events = IMRecorder()

        init() {
            engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "im-test-events"), logLevel: .off))
        }

        func enable(_ server: TestServer, uid: String, url: String? = nil, lastSeq: Int64? = nil) async throws {
            try await engine.enableIm(url: url ?? server.httpBase, token: server.imToken(uid: uid), lastSeq: lastSeq, delegate: events)
        }
    }

    static func server() throws -> TestServer { try TestServer(modules: [IMModule.factory]) }

    @Test func twoClientsExchangeMessagesAndCompleteACallInTheProposedChannel() async throws {
        let server = try Self.server()
        let alice = Client(), bob = Client()
        try await alice.enable(server, uid: "alice")
        try await bob.enable(server, uid: "bob")
        #expect(alice.engine.imUid == "alice" && alice.engine.isImConnected)
        try await alice.engine.sendImMessage(to: "bob", content: "hi bob")
        try await bob.engine.sendImMessage(to: "alice", content: "hi alice")
        #expect(try await bob.events.messages(count: 1).map(\.content) == ["hi bob"])
        #expect(try await alice.events.messages(count: 1).first?.from == "bob")

        let call = try await alice.engine.sendCallInvite(to: "bob", channel: "call-ab", content: "video")
        let ring = try #require(try await bob.events.messages(count: 2).last)
        #expect(ring.kind == .callInvite && ring.callId == call.callId && ring.channel == "call-ab" && ring.content == "video")
        try await bob.engine.acceptCall(callId: call.callId)
        let accepted = try #require(try await alice.events.messages(count: 2).last)
        #expect(accepted.kind == .callAccepted && accepted.from == "bob")
        #expect(try await bob.events.messages(count: 3).last?.kind == .callAccepted)

        // Both meet in the channel the invitation named; IM carries on beside it.
        let aliceChannel = try alice.engine.createChannel(), bobChannel = try bob.engine.createChannel()
        _ = try await aliceChannel.join(url: server.httpBase, token: server.token(uid: "alice", channel: ring.channel ?? ""))
        let info = try await bobChannel.join(url: server.httpBase, token: server.token(uid: "bob", channel: ring.channel ?? ""))
        #expect(info.userCount == 2)
        try await alice.engine.sendImMessage(to: "bob", content: "in the call")
        #expect(try await bob.events.messages(count: 4).last?.content == "in the call")
        await aliceChannel.leave()
        await bobChannel.leave()
        // Each entry came once, in seq order.
        #expect(bob.events.messages.map(\.seq) == [1, 2, 3, 4])
        await alice.engine.destroy()
        await bob.engine.destroy()
        await server.stop()
    }

    /// The callee declines and the caller cancels through the SDK (`declineCall`, `cancelCall`):
    /// each outcome, with its `content`, reaches both parties; an ended call cannot be answered.
    /// Bob's events go to a delegate set with the `imDelegate` property alone.
    @Test func declinedAndCancelledCallsReachBothSides() async throws {
        let server = try Self.server()
        let alice = Client(), bob = Client()
        try await alice.enable(server, uid: "alice")
        bob.engine.imDelegate = bob.events
        try await bob.engine.enableIm(url: server.httpBase, token: server.imToken(uid: "bob"), delegate: nil)
        #expect(bob.engine.imDelegate === bob.events)

        let declined = try await alice.engine.sendCallInvite(to: "bob", channel: "call-d", content: "audio")
        #expect(try await bob.events.messages(count: 1).last?.callId == declined.callId)
        try await bob.engine.declineCall(callId: declined.callId, content: "busy")
        let answer = try #require(try await alice.events.messages(count: 1).last)
        #expect(answer.kind == .callDeclined && answer.callId == declined.callId && answer.from == "bob" && answer.content == "busy")
        #expect(try await bob.events.messages(count: 2).last?.kind == .callDeclined)
        await #expect(throws: SRTCError.self) { try await bob.engine.acceptCall(callId: declined.callId) }
        do {
            try await alice.engine.cancelCall(callId: declined.callId)
            Issue.record("a declined call was cancelled")
        } catch let error as SRTCError {
            #expect(error.serverCode == .wrongState)
        }

        let cancelled = try await alice.engine.sendCallInvite(to: "bob", channel: "call-c")
        #expect(try await bob.events.messages(count: 3).last?.kind == .callInvite)
        do {
            try await bob.engine.cancelCall(callId: cancelled.callId)
            Issue.record("the callee cancelled the caller's call")
        } catch let error as SRTCError {
            #expect(error.serverCode == .permissionDenied)
        }
        try await alice.engine.cancelCall(callId: cancelled.callId, content: "sorry")
        let withdrawn = try #require(try await bob.events.messages(count: 4).last)
        #expect(withdrawn.kind == .callCancelled && withdrawn.callId == cancelled.callId && withdrawn.from == "alice"
                && withdrawn.content == "sorry")
        #expect(try await alice.events.messages(count: 2).map(\.kind) == [.callDeclined, .callCancelled])
        #expect(bob.events.messages.map(\.kind) == [.callInvite, .callDeclined, .callInvite, .callCancelled])
        await alice.engine.destroy()
        await bob.engine.destroy()
        await server.stop()
    }

    @Test func anOfflineUserGetsStoredEntriesInOrderWhenItEnablesIm() async throws {
        let server = try Self.server()
        let alice = Client(), bob = Client()
        try await bob.enable(server, uid: "bob")
        bob.engine.disableIm()
        try await bob.events.wait(for: "disconnected -")
        try await alice.enable(server, uid: "alice")
        for i in 1...4 { try await alice.engine.sendImMessage(to: "bob", content: "m\(i)") }
        _ = try await alice.engine.sendCallInvite(to: "bob", timeoutSeconds: 1)
        let later = Client()
        try await later.enable(server, uid: "bob")
        let entries = try await later.events.messages(count: 6)
        #expect(entries.map(\.content).prefix(4) == ["m1", "m2", "m3", "m4"])
        // A call that rang while bob was away: the invitation, then its timeout (a missed call).
        #expect(entries.suffix(2).map(\.kind) == [.callInvite, .callTimeout])
        #expect(entries.map(\.seq) == [1, 2, 3, 4, 5, 6])
        await server.stop()
    }

    @Test func aDroppedConnectionResumesWithNothingLostOrRepeated() async throws {
        let server = try Self.server()
        let proxy = try SDKTestProxy(to: server.port)
        let alice = Client(), bob = Client()
        try await alice.enable(server, uid: "alice")
        try await bob.enable(server, uid: "bob", url: proxy.url)
        for i in 1...3 { try await alice.engine.sendImMessage(to: "bob", content: "before \(i)") }
        try await bob.events.messages(count: 3)
        proxy.setRefusing(true)
        proxy.dropAll()
        try await bob.events.wait(for: "reconnecting")
        for i in 1...3 { try await alice.engine.sendImMessage(to: "bob", content: "during \(i)") }
        proxy.setRefusing(false)
        let all = try await bob.events.messages(count: 6)
        try await bob.events.wait(for: "connected")
        try await alice.engine.sendImMessage(to: "bob", content: "after")
        let final = try await bob.events.messages(count: 7)
        #expect(final.map(\.content) == ["before 1", "before 2", "before 3", "during 1", "during 2", "during 3", "after"])
        #expect(final.map(\.seq) == Array(1...7))
        #expect(all.count == 6)
        #expect(bob.engine.imLastSeq == 7)
        proxy.stop()
        await server.stop()
    }

    @Test func refusalsAreTheDocumentedErrors() async throws {
        let server = try Self.server()
        let alice = Client()
        await #expect(throws: SRTCError.wrongState("IM is not enabled")) { try await alice.engine.sendImMessage(to: "bob", content: "x") }
        do {
            try await alice.engine.enableIm(url: server.httpBase, token: server.imToken(uid: "alice", key: "wrong"), delegate: alice.events)
            Issue.record("a forged token was accepted")
        } catch let error as SRTCError {
            #expect(error.code == 40106)
        }
        try await alice.enable(server, uid: "alice")
        await #expect(throws: SRTCError.self) { try await alice.enable(server, uid: "alice") }  // .conflict
        do {
            try await alice.engine.sendImMessage(to: "nobody", content: "x")
            Issue.record("an unknown recipient was accepted")
        } catch let error as SRTCError {
            #expect(error.code == 40401)
        }
        do {
            try await alice.engine.sendImMessage(to: "alice", content: String(repeating: "x", count: 5000))
            Issue.record("an oversized message was accepted")
        } catch let error as SRTCError {
            #expect(error.code == 41301)
        }
        await server.stop()
    }
}

extension TestServer {
    /// An IM token signed with the test app's key.
    func imToken(uid: String, key: String = TestServer.appKey) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            im: IMGrant()), key: key)
    }
}
