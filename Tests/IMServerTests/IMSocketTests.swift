import Foundation
import Testing
import IMServer
import SRTCProtocol
import SRTCServer
import SRTCTestSupport

/// The IM WebSocket against a real server: delivery to every session, offline storage,
/// resumption, acknowledgements, and the documented errors.
@Suite struct IMSocketTests {
    @Test func aMessageReachesEverySessionOfItsRecipientWithTheNextSeq() async throws {
        let server = try makeIMServer()
        let (alice, _) = try await server.imSession("alice")
        let (bobPhone, _) = try await server.imSession("bob")
        let (bobDesk, _) = try await server.imSession("bob")
        let sent = try await alice.call("send", IMSendRequest(to: "bob", content: "hello bob"))
        #expect(sent.ok)
        for session in [bobPhone, bobDesk] {
            let received = try await session.imMessages(count: 1)
            #expect(received.map(\.content) == ["hello bob"])
            #expect(received[0].seq == 1 && received[0].from == "alice" && received[0].kind == .message)
            #expect(received[0].msgId == (try sent.data(IMSendResponse.self)).msgId)
        }
        #expect(alice.imMessages.isEmpty)
        await server.stop()
    }

    @Test func anOfflineUserGetsStoredMessagesInOrderRightAfterLogin() async throws {
        let server = try makeIMServer()
        let (carol, _) = try await server.imSession("carol")
        carol.close()
        let (alice, _) = try await server.imSession("alice")
        for i in 1...5 { #expect(try await alice.call("send", IMSendRequest(to: "carol", content: "m\(i)")).ok) }
        let (again, login) = try await server.imSession("carol")
        #expect(login.resumeFrom == 0 && login.lastSeq == 5)
        let replayed = try await again.imMessages(count: 5)
        #expect(replayed.map(\.content) == ["m1", "m2", "m3", "m4", "m5"])
        #expect(replayed.map(\.seq) == [1, 2, 3, 4, 5])
        // The login answer comes before the replay.
        let loginIndex = again.received.firstIndex { $0.contains(#""type":"login""#) }
        let firstEvent = again.received.firstIndex { $0.contains(#""type":"message""#) }
        #expect(try #require(loginIndex) < #require(firstEvent))
        await server.stop()
    }

    @Test func resumingAfterADroppedConnectionLosesAndRepeatsNothing() async throws {
        let server = try makeIMServer()
        let (bob, _) = try await server.imSession("bob")
        let (alice, _) = try await server.imSession("alice")
        for i in 1...3 { _ = try await alice.call("send", IMSendRequest(to: "bob", content: "a\(i)")) }
        let firstThree = try await bob.imMessages(count: 3)
        // Bob handled 2 (and acknowledged them), then his connection dropped.
        #expect(try await bob.call("ack", IMAckRequest(seq: 2)).ok)
        bob.socket.close(code: .goingAway, reason: "network lost")
        for i in 4...5 { _ = try await alice.call("send", IMSendRequest(to: "bob", content: "a\(i)")) }
        let (resumed, login) = try await server.imSession("bob", lastSeq: 2)
        #expect(login.resumeFrom == 2)
        let rest = try await resumed.imMessages(count: 3)
        #expect(firstThree.map(\.content) == ["a1", "a2", "a3"])
        #expect(rest.map(\.seq) == [3, 4, 5] && rest.map(\.content) == ["a3", "a4", "a5"])
        // A new device without a resume point gets what nobody acknowledged.
        let (fresh, freshLogin) = try await server.imSession("bob")
        #expect(freshLogin.resumeFrom == 2)
        #expect(try await fresh.imMessages(count: 3).map(\.seq) == [3, 4, 5])
        // A live message after the replay comes once, with the next seq.
        _ = try await alice.call("send", IMSendRequest(to: "bob", content: "a6"))
        #expect(try await resumed.imMessages(count: 4).map(\.seq) == [3, 4, 5, 6])
        await server.stop()
    }

    @Test func badRequestsGetTheirDocumentedErrors() async throws {
        let server = try makeIMServer { $0.im.maxContentBytes = 100 }
        let (alice, login) = try await server.imSession("alice")
        #expect(login.maxContentBytes == 100)
        _ = try await server.imSession("bob")
        let big = try await alice.call("send", IMSendRequest(to: "bob", content: String(repeating: "x", count: 101)))
        #expect(big.error?.errorCode == .payloadTooLarge)
        let unknown = try await alice.call("send", IMSendRequest(to: "nobody", content: "hi"))
        #expect(unknown.error?.errorCode == .notFound)
        let invalid = try await alice.call("send", IMSendRequest(to: "bad uid!", content: "hi"))
        #expect(invalid.error?.errorCode == .invalidParameter)
        let missing = try await alice.call("send", ["content": "no recipient"])
        #expect(missing.error == SignalError(.malformedBody, "missing field to"))
        let unknownType = try await alice.call("teleport", ["to": "bob"])
        #expect(unknownType.error?.errorCode == .malformedBody)
        let second = try await alice.call("login", IMLoginRequest(token: server.imToken(uid: "alice")))
        #expect(second.error?.errorCode == .wrongState)

        let early = try await TestEnvelopeSocket(url: server.imURL)
        #expect(try await early.call("send", IMSendRequest(to: "bob", content: "x")).error?.errorCode == .wrongState)
        for (token, code) in [(server.imToken(uid: "eve", key: "wrong"), APIErrorCode.invalidToken), (server.imToken(uid: "eve", lifetime: -60), .tokenExpired),
                              (server.token(uid: "eve", channel: "room"), .invalidToken)] {
            let socket = try await TestEnvelopeSocket(url: server.imURL)
            #expect(try await socket.call("login", IMLoginRequest(token: token)).error?.errorCode == code)
            #expect(try await socket.closed() == 1008)
        }
        await server.stop()
    }

    @Test func aFullMailboxRefusesNewMessagesWithLimitReached() async throws {
        let server = try makeIMServer { $0.im.mailboxSize = 2 }
        _ = try await server.imSession("bob")
        let (alice, _) = try await server.imSession("alice")
        #expect(try await alice.call("send", IMSendRequest(to: "bob", content: "1")).ok)
        #expect(try await alice.call("send", IMSendRequest(to: "bob", content: "2")).ok)
        #expect(try await alice.call("send", IMSendRequest(to: "bob", content: "3")).error?.errorCode == .limitReached)
        await server.stop()
    }

    @Test func notificationsFromTheBackendReachOnlineAndOfflineUsers() async throws {
        let server = try makeIMServer()
        let (grantStatus, grant) = try await server.call("/server/v1/im/grant", ["uid": "dora", "nickname": "Dora"])
        #expect(grantStatus == 200)
        let token = try #require(grant["token"] as? String)
        let dora = try await TestEnvelopeSocket(url: server.imURL)
        #expect(try await dora.call("login", IMLoginRequest(token: token)).ok)
        let (status, body) = try await server.call("/server/v1/im/notify", ["uids": ["dora", "ed"], "title": "Maintenance", "content": "at 22:00"])
        #expect(status == 200)
        #expect(body["delivered"] as? Int == 2)
        let note = try #require(try await dora.imMessages(count: 1).first)
        #expect(note.kind == .notification && note.from == nil && note.title == "Maintenance" && note.content == "at 22:00")
        // Ed had never logged in: it waits for him.
        let (ed, _) = try await server.imSession("ed")
        #expect(try await ed.imMessages(count: 1).map(\.content) == ["at 22:00"])
        let (badStatus, bad) = try await server.call("/server/v1/im/notify", ["uids": [String](), "content": "x"])
        #expect(badStatus == 400 && bad["code"] as? Int == 40002)
        await server.stop()
    }
}
