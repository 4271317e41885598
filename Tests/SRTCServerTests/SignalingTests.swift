import Foundation
import Testing
import RTCNet
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import TestWait

/// Signaling over real WebSockets against an in-process server (docs/protocol.md).
@Suite(.serialized) struct SignalingTests {
    @Test func usersSeeEachOtherJoinAndLeave() async throws {
        let server = try TestServer()
        let a = try await TestSignalClient(url: server.wsURL)
        let joinA = try await a.join(token: server.token(uid: "alice", channel: "room"), nickname: "Alice")
        #expect(joinA.me.uid == "alice" && joinA.me.nickname == "Alice" && joinA.users.isEmpty && !joinA.resumed)
        #expect(joinA.channel.channel == "room" && joinA.channel.userCount == 1)

        let b = try await TestSignalClient(url: server.wsURL)
        let joinB = try await b.join(token: server.token(uid: "bob", channel: "room"))
        #expect(joinB.users.map(\.uid) == ["alice"])
        let joined = try await a.event { if case .userJoined(let u) = $0 { return u }; return nil }
        #expect(joined.uid == "bob")

        #expect(try await b.request(.leave) == .success(.empty))
        let left = try await a.event { if case .userLeft(let l) = $0 { return l }; return nil }
        #expect(left == UserLeft(uid: "bob", reason: .clientLeave))
        await server.stop()
    }

    @Test func customMessagesReachEveryoneOrTheListedUsers() async throws {
        let server = try TestServer()
        let clients = try await (0..<3).asyncMap { i in
            let c = try await TestSignalClient(url: server.wsURL)
            _ = try await c.join(token: server.token(uid: "u\(i)", channel: "chat"))
            return c
        }
        #expect(try await clients[0].request(.sendMessage(SendMessageRequest(data: "hello all"))) == .success(.empty))
        for c in clients[1...] {
            let m = try await c.event { if case .message(let m) = $0 { return m }; return nil }
            #expect(m.from == "u0" && m.data == "hello all" && m.to == nil)
        }
        #expect(try await clients[1].request(.sendMessage(SendMessageRequest(to: ["u2"], data: "just you"))) == .success(.empty))
        let direct = try await clients[2].event { if case .message(let m) = $0, m.data == "just you" { return m }; return nil }
        #expect(direct.from == "u1")
        // u1's message was delivered before u1 got its answer; u0's ping is answered after that on
        // the same ordered socket, so a copy sent to u0 would have arrived before the pong.
        #expect(try await clients[0].request(.ping).isSuccess)
        #expect(!clients[0].events.contains { if case .message(let m) = $0 { return m.data == "just you" }; return false })

        let tooBig = try await clients[0].request(.sendMessage(SendMessageRequest(data: String(repeating: "x", count: 17 * 1024))))
        #expect(tooBig == .failure(SignalError(.payloadTooLarge, "message data exceeds 16384 bytes")))
        await server.stop()
    }

    @Test func permissionsOfTheTokenAreEnforced() async throws {
        let server = try TestServer()
        let c = try await TestSignalClient(url: server.wsURL)
        _ = try await c.join(token: server.token(uid: "viewer", channel: "p", publish: false, subscribe: false, publishData: false))
        let publish = try await c.request(.publish(PublishRequest(sdp: "v=0", tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")])))
        #expect(publish.errorCode == .permissionDenied)
        #expect(try await c.request(.subscribe(SubscribeRequest(trackId: "TR_x"))).errorCode == .permissionDenied)
        #expect(try await c.request(.sendMessage(SendMessageRequest(data: "x"))).errorCode == .permissionDenied)
        #expect(try await c.request(.updateProfile(ProfileUpdate(nickname: "n"))).errorCode == .permissionDenied)
        await server.stop()
    }

    @Test func profileUpdatesReachMeAndOthers() async throws {
        let server = try TestServer()
        let a = try await TestSignalClient(url: server.wsURL)
        _ = try await a.join(token: server.token(uid: "a", channel: "prof"))
        let b = try await TestSignalClient(url: server.wsURL)
        _ = try await b.join(token: server.token(uid: "b", channel: "prof"))
        #expect(try await a.request(.updateProfile(ProfileUpdate(nickname: "Anna", custom: #"{"hand":true}"#))) == .success(.empty))
        let me = try await a.event { if case .meUpdated(let u) = $0 { return u }; return nil }
        #expect(me.nickname == "Anna" && me.custom == #"{"hand":true}"#)
        let other = try await b.event { if case .userUpdated(let u) = $0 { return u }; return nil }
        #expect(other.uid == "a" && other.nickname == "Anna")
        await server.stop()
    }

    @Test func joiningTwiceReplacesTheOlderSession() async throws {
        let server = try TestServer()
        let watcher = try await TestSignalClient(url: server.wsURL)
        _ = try await watcher.join(token: server.token(uid: "w", channel: "dup"))
        let first = try await TestSignalClient(url: server.wsURL)
        let s1 = try await first.join(token: server.token(uid: "same", channel: "dup"))
        let second = try await TestSignalClient(url: server.wsURL)
        let s2 = try await second.join(token: server.token(uid: "same", channel: "dup"))
        #expect(s1.sessionId != s2.sessionId)
        let told = try await first.event { if case .disconnected(let d) = $0 { return d }; return nil }
        #expect(told.reason == .duplicateLogin)
        let close = await first.socket.closed()
        #expect(close.code == .normalClosure)
        let left = try await watcher.event { if case .userLeft(let l) = $0 { return l }; return nil }
        #expect(left == UserLeft(uid: "same", reason: .duplicateLogin))
        #expect(try await second.request(.ping).isSuccess)
        await server.stop()
    }

    @Test func droppedSocketResumesWithinTheGracePeriodUnseenByOthers() async throws {
        let server = try TestServer(grace: 5)
        let other = try await TestSignalClient(url: server.wsURL)
        _ = try await other.join(token: server.token(uid: "other", channel: "resume"))
        let first = try await TestSignalClient(url: server.wsURL)
        let joined = try await first.join(token: server.token(uid: "mobile", channel: "resume"))
        first.close()
        _ = await first.socket.closed()
        // The server holds the session without a connection (its grace period) before the resume.
        let room = try #require(server.app.channels.existingRoom(ChannelKey(appId: TestServer.appId, name: "resume")))
        try await eventually("the server noticed the drop") { await room.perform(ifClosed: false) { $0.participants["mobile"]?.connection == nil } }
        let again = try await TestSignalClient(url: server.wsURL)
        let resumed = try await again.join(token: server.token(uid: "mobile", channel: "resume"), sessionId: joined.sessionId)
        #expect(resumed.resumed && resumed.sessionId == joined.sessionId)
        #expect(resumed.users.map(\.uid) == ["other"])
        // Anything the room sent "other" about the drop or the resume came before this answer.
        #expect(try await other.request(.ping).isSuccess)
        #expect(!other.events.contains { if case .userLeft = $0 { return true }; return false })
        // The resumed session is live: messages reach it.
        #expect(try await other.request(.sendMessage(SendMessageRequest(to: ["mobile"], data: "still here?"))) == .success(.empty))
        let m = try await again.event { if case .message(let m) = $0 { return m }; return nil }
        #expect(m.data == "still here?")
        await server.stop()
    }

    @Test func sessionNotResumedLeavesAfterTheGracePeriod() async throws {
        let server = try TestServer(grace: 1)
        let other = try await TestSignalClient(url: server.wsURL)
        _ = try await other.join(token: server.token(uid: "other", channel: "grace"))
        let gone = try await TestSignalClient(url: server.wsURL)
        _ = try await gone.join(token: server.token(uid: "gone", channel: "grace"))
        gone.close()
        let left = try await other.event { if case .userLeft(let l) = $0 { return l }; return nil }
        #expect(left == UserLeft(uid: "gone", reason: .timeout))
        await server.stop()
    }

    @Test func badTokensAreRefusedWithTheirCodes() async throws {
        let server = try TestServer()
        let cases: [(String, APIErrorCode)] = [
            (server.token(uid: "x", channel: "t", lifetime: -60), .tokenExpired),
            (server.token(uid: "x", channel: "t", nbfOffset: 600), .tokenNotYetValid),
            ("not-a-token", .invalidToken),
            (AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: "x", iat: 0, nbf: 0, exp: Int64.max / 2, jti: "j",
                                          grant: ChannelGrant(channel: "t")), key: "wrong-key"), .invalidToken),
        ]
        for (token, code) in cases {
            let c = try await TestSignalClient(url: server.wsURL)
            let result = try await c.request(.join(JoinRequest(token: token)))
            #expect(result.errorCode == code)
            let close = await c.socket.closed()
            #expect(close.code == .policyViolation)
        }
        await #expect(throws: (any Error).self) { _ = try await TestSignalClient(url: server.wsURL + "?token=garbage") }
        await server.stop()
    }

    @Test func malformedMessagesGetErrorsAndDisturbNobody() async throws {
        let server = try TestServer()
        let good = try await TestSignalClient(url: server.wsURL)
        _ = try await good.join(token: server.token(uid: "good", channel: "bad"))
        let bad = try await TestSignalClient(url: server.wsURL)

        #expect(try await bad.request(.ping).errorCode == .wrongState)   // before join
        _ = try await bad.join(token: server.token(uid: "bad", channel: "bad"))
        bad.sendRaw(#"{"id":900,"type":"dance"}"#)
        let unknown = try await bad.response(id: 900)
        #expect(unknown.result.errorCode == .malformedBody)
        bad.sendRaw(#"{"id":901,"type":"subscribe","data":{"layer":1}}"#)
        #expect(try await bad.response(id: 901).result.errorCode == .malformedBody)
        for junk in ["", "{", "[1,2]", "null", #"{"type":"ping"}"#, String(repeating: "\u{0}", count: 10)] { bad.sendRaw(junk) }
        #expect(try await bad.request(.join(JoinRequest(token: "x"))).errorCode == .wrongState)  // second join
        #expect(try await bad.request(.subscribe(SubscribeRequest(trackId: "TR_none"))).errorCode == .notFound)
        #expect(try await bad.request(.ping).isSuccess)   // still served

        // An oversized message closes only that socket, with 1009.
        bad.sendRaw(#"{"id":5,"type":"send_message","data":{"data":""# + String(repeating: "y", count: 70_000) + #""}}"#)
        let close = await bad.socket.closed()
        #expect(close.code == WebSocketCloseCode(rawValue: 1009))
        #expect(try await good.request(.ping).isSuccess)
        await server.stop()
    }

    @Test func aSessionEndsWhenItsTokenExpires() async throws {
        // The session ends when the token's leeway after `exp` is over too (AbuseTests has the details).
        let server = try TestServer { $0.limits.tokenLeewaySeconds = 1 }
        let watcher = try await TestSignalClient(url: server.wsURL)
        _ = try await watcher.join(token: server.token(uid: "w", channel: "expiry"))
        let short = try await TestSignalClient(url: server.wsURL)
        _ = try await short.join(token: server.token(uid: "short", channel: "expiry", lifetime: 2))
        let told = try await short.event { if case .disconnected(let d) = $0 { return d }; return nil }
        #expect(told.reason == .tokenExpired)
        let left = try await watcher.event { if case .userLeft(let l) = $0 { return l }; return nil }
        #expect(left == UserLeft(uid: "short", reason: .tokenExpired))
        await server.stop()
    }

    @Test func joinRateIsLimitedPerChannel() async throws {
        let server = try TestServer { $0.limits.joinsPerSecond = 2 }
        var results: [APIErrorCode?] = []
        for i in 0..<4 {
            let c = try await TestSignalClient(url: server.wsURL)
            results.append(try await c.request(.join(JoinRequest(token: server.token(uid: "r\(i)", channel: "rate")))).errorCode)
        }
        #expect(results.prefix(2).allSatisfy { $0 == nil })
        #expect(results.contains(.rateLimited))
        // Another channel has its own budget.
        let other = try await TestSignalClient(url: server.wsURL)
        #expect(try await other.request(.join(JoinRequest(token: server.token(uid: "x", channel: "elsewhere")))).isSuccess)
        await server.stop()
    }

    @Test func limitsAreEnforced() async throws {
        let server = try TestServer { $0.limits.maxUsersPerChannel = 2 }
        for uid in ["a", "b"] { _ = try await TestSignalClient(url: server.wsURL).join(token: server.token(uid: uid, channel: "small")) }
        let third = try await TestSignalClient(url: server.wsURL)
        #expect(try await third.request(.join(JoinRequest(token: server.token(uid: "c", channel: "small")))).errorCode == .limitReached)
        await server.stop()
    }
}


extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await transform(e)) }
        return out
    }
}
