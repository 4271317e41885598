import Foundation
@testable import SRTCCore
import TestWait
import SRTCTestSupport
import Testing

/// The SDK against the real server over loopback: signaling only (join, users, messages,
/// profile, several channels per engine, reconnection, server-side endings).
@Suite(.serialized) struct SDKSignalingTests {
    /// An engine with its own event queue (tests run no main loop) and one channel observed by a recorder.
    struct Client {
        let engine: SRTCEngine
        let channel: Channel
        let events: SDKEventRecorder

        init(engine: SRTCEngine? = nil) {
            let engine = engine ?? SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "sdk-test-events"), logLevel: .off))
            self.engine = engine
            channel = try! engine.createChannel()  // a live engine: this cannot throw
            events = SDKEventRecorder()
            channel.delegates.add(delegate: events)
        }
    }

    @Test func joiningSeesTheUsersAlreadyThereAndThoseWhoComeAndGo() async throws {
        let server = try SDKTestServer()
        let alice = Client(), bob = Client()
        let info = try await alice.channel.join(url: server.url, token: server.token(uid: "alice", channel: "room1"), nickname: "Alice")
        #expect(info.channel == "room1")
        #expect(info.userCount == 1)
        #expect(alice.channel.uid == "alice")
        #expect(alice.channel.me?.nickname == "Alice")
        #expect(alice.engine.getChannels().count == 1)

        try await bob.channel.join(url: server.url, token: server.token(uid: "bob", channel: "room1"), nickname: "Bob")
        // Bob learns about Alice right after his own join succeeded.
        try await bob.events.wait(for: "user+ alice")
        #expect(bob.events.events.prefix(2) == ["joined room1", "user+ alice"])
        #expect(bob.channel.users.map(\.uid) == ["alice"])
        #expect(bob.channel.user(uid: "alice")?.nickname == "Alice")
        try await alice.events.wait(for: "user+ bob")
        #expect(alice.channel.users.map(\.nickname) == ["Bob"])
        try await alice.events.wait(for: "info users=2")
        #expect(alice.channel.info?.userCount == 2)

        await bob.channel.leave()
        #expect(bob.channel.connectionState == .disconnected)
        #expect(bob.engine.getChannels().isEmpty)
        try await bob.events.wait(for: "disconnected client_leave")
        try await alice.events.wait(for: "user- bob client_leave")
        #expect(alice.channel.users.isEmpty)
        await alice.channel.leave()
        await server.stop()
    }

    @Test func customMessagesReachEveryoneElseOrTheNamedUsers() async throws {
        let server = try SDKTestServer()
        let a = Client(), b = Client(), c = Client()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "chat"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "chat"))
        try await c.channel.join(url: server.url, token: server.token(uid: "c", channel: "chat"))
        try await a.events.wait(for: "user+ c")

        try await a.channel.sendCustomMessage(#"{"hello":"all"}"#)
        try await b.events.wait(for: #"message a: {"hello":"all"}"#)
        try await c.events.wait(for: #"message a: {"hello":"all"}"#)
        try await a.channel.sendCustomMessage("for c only", to: ["c"])
        try await c.events.wait(for: "message a: for c only")
        try await b.channel.sendCustomMessage("sync") // b's own traffic orders after a's
        try await c.events.wait(for: "message b: sync")
        try await a.events.wait(for: "message b: sync")
        #expect(b.events.messages.map(\.data) == [#"{"hello":"all"}"#])
        #expect(a.events.messages.map(\.from) == ["b"]) // never my own message
        #expect(c.events.messages.first?.timestamp ?? 0 > 0)

        // A token without publish_data may not send.
        let muted = Client()
        try await muted.channel.join(url: server.url, token: server.token(uid: "d", channel: "chat", publishData: false))
        await #expect(throws: SRTCError.server(code: 40301, message: "")) {
            do { try await muted.channel.sendCustomMessage("nope") } catch let error as SRTCError {
                if case .server(let code, _) = error { throw SRTCError.server(code: code, message: "") }
                throw error
            }
        }
        for client in [a, b, c, muted] { await client.channel.leave() }
        await server.stop()
    }

    @Test func profileUpdatesReachMeAndTheOthers() async throws {
        let server = try SDKTestServer()
        let a = Client(), b = Client()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "p"), nickname: "A")
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "p"), nickname: "B")
        try await a.events.wait(for: "user+ b")
        try await b.channel.updateProfile(nickname: "Bee", custom: #"{"role":"host"}"#)
        try await b.events.wait(for: "me~ Bee")
        try await a.events.wait(for: "user~ b Bee")
        #expect(a.channel.user(uid: "b")?.custom == #"{"role":"host"}"#)
        #expect(b.channel.me?.nickname == "Bee")
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    @Test func twoChannelsOfOneEngineKeepTheirOwnUsersAndEvents() async throws {
        let server = try SDKTestServer()
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "two-channels"), logLevel: .off))
        let first = Client(engine: engine), second = Client(engine: engine)
        try await first.channel.join(url: server.url, token: server.token(uid: "me", channel: "one"))
        try await second.channel.join(url: server.url, token: server.token(uid: "me", channel: "two"))
        #expect(Set(engine.getChannels().map { $0.channelId ?? "" }) == ["one", "two"])

        let other = Client()
        try await other.channel.join(url: server.url, token: server.token(uid: "other", channel: "one"))
        try await other.channel.sendCustomMessage("to one")
        try await first.events.wait(for: "message other: to one")
        #expect(first.channel.users.map(\.uid) == ["other"])
        #expect(second.channel.users.isEmpty)
        #expect(!second.events.events.contains { $0.contains("other") })

        // Leaving one channel leaves the other joined.
        await first.channel.leave()
        #expect(engine.getChannels().map { $0.channelId } == ["two"])
        try await other.events.wait(for: "user- me client_leave")
        #expect(second.channel.connectionState == .connected)
        await second.channel.leave()
        await other.channel.leave()
        await server.stop()
    }

    @Test func aDroppedConnectionIsResumedWithoutTheOthersNoticing() async throws {
        let server = try SDKTestServer(grace: 20)
        let proxy = try SDKTestProxy(to: server.port)
        let a = Client(), b = Client(), c = Client()
        try await a.channel.join(url: proxy.url, token: server.token(uid: "a", channel: "r"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "r"), nickname: "B")
        try await a.events.wait(for: "user+ b")
        let session = a.channel.sessionId

        // Cut A's connection and keep it down while things change in the channel.
        proxy.setRefusing(true)
        proxy.dropAll()
        try await a.events.wait(for: "reconnecting")
        #expect(a.channel.connectionState == .reconnecting)
        #expect(a.engine.getChannels().count == 1) // still joined while reconnecting
        try await b.channel.updateProfile(nickname: "B2")
        try await c.channel.join(url: server.url, token: server.token(uid: "c", channel: "r"))
        try await eventually("a reconnect attempt refused") { proxy.refusedCount >= 1 }
        proxy.setRefusing(false)

        try await a.events.wait(for: "reconnected")
        #expect(a.channel.sessionId == session)
        #expect(a.channel.connectionState == .connected)
        // What happened meanwhile arrives as events after the resume.
        try await a.events.wait(for: "user+ c")
        try await a.events.wait(for: "user~ b B2")
        #expect(Set(a.channel.users.map(\.uid)) == ["b", "c"])
        // B never saw A leave.
        #expect(!b.events.events.contains { $0.hasPrefix("user- a") })
        // Events and requests flow again in both directions.
        try await b.channel.sendCustomMessage("after")
        try await a.events.wait(for: "message b: after")
        try await a.channel.sendCustomMessage("back")
        try await b.events.wait(for: "message a: back")
        #expect(a.events.events.filter { $0 == "reconnecting" }.count == 1)
        for client in [a, b, c] { await client.channel.leave() }
        proxy.stop()
        await server.stop()
    }

    @Test func aConnectionDownPastTheGracePeriodEndsTheChannel() async throws {
        let server = try SDKTestServer(grace: 2)
        let proxy = try SDKTestProxy(to: server.port)
        let a = Client(), b = Client()
        try await a.channel.join(url: proxy.url, token: server.token(uid: "a", channel: "g"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "g"))
        try await a.events.wait(for: "user+ b")
        proxy.setRefusing(true)
        proxy.dropAll()
        try await a.events.wait(for: "reconnecting")
        try await a.events.wait(for: "disconnected timeout")
        #expect(a.channel.connectionState == .disconnected)
        #expect(a.engine.getChannels().isEmpty)
        try await b.events.wait(for: "user- a timeout")
        await b.channel.leave()
        proxy.stop()
        await server.stop()
    }

    @Test func aKickEndsTheChannelWithoutReconnecting() async throws {
        let server = try SDKTestServer()
        let a = Client(), b = Client()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "k"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "k"))
        #expect(try await server.call("/server/v1/channel/kick", ["channel": "k", "uid": "a"]).0 == 200)
        try await a.events.wait(for: "disconnected kicked")
        try await b.events.wait(for: "user- a kicked")
        // The kick ended the session on the channel's queue before its socket closed; once that
        // queue and then the delegate queue have run what was given them, a reconnect would show.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            a.channel.queue.async { a.channel.delegates.queue.async { done.resume() } }
        }
        #expect(!a.events.events.contains("reconnecting"))
        #expect(a.channel.connectionState == .disconnected)
        // The channel instance can join again.
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "k"))
        // B saw A when B joined, and again now.
        try await b.events.wait { $0.filter { $0 == "user+ a" }.count == 2 }
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    @Test func refusedTokensAndBadURLsThrow() async throws {
        let server = try SDKTestServer()
        let a = Client()
        do {
            try await a.channel.join(url: server.url, token: "not.a.token")
            Issue.record("join with a bad token succeeded")
        } catch {
            #expect(error.code == 40106)
        }
        #expect(a.channel.connectionState == .disconnected)
        await #expect(throws: SRTCError.invalidURL("localhost:7880")) {
            try await a.channel.join(url: "localhost:7880", token: "t")
        }
        await #expect(throws: SRTCError.notJoined) { try await a.channel.sendCustomMessage("x") }
        await server.stop()
    }

    @Test func destroyingTheEngineLeavesEveryChannelFirst() async throws {
        let server = try SDKTestServer()
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "destroy"), logLevel: .off))
        let one = Client(engine: engine), two = Client(engine: engine), watcher = Client()
        try await watcher.channel.join(url: server.url, token: server.token(uid: "w", channel: "d1"))
        try await one.channel.join(url: server.url, token: server.token(uid: "x", channel: "d1"))
        try await two.channel.join(url: server.url, token: server.token(uid: "x", channel: "d2"))
        await engine.destroy()
        #expect(one.channel.connectionState == .disconnected)
        #expect(two.channel.connectionState == .disconnected)
        #expect(engine.getChannels().isEmpty)
        try await watcher.events.wait(for: "user- x client_leave")
        await #expect(throws: SRTCError.engineDestroyed) {
            try await engine.createChannel().join(url: server.url, token: server.token(uid: "x", channel: "d1"))
        }
        await watcher.channel.leave()
        await server.stop()
    }
}
