import Testing
import IMServer
import SRTCProtocol
import SRTCServer
import SRTCTestSupport

/// The IM store on both engines (SQLite, PostgreSQL): numbering, bounds, expiry, calls and keys.
@Suite struct IMStoreTests {
    static func store(_ kind: TestStore) async throws -> SQLIMStore { try SQLIMStore(database: try await kind.open()) }

    static func entry(_ to: String, _ content: String) -> IMMessage {
        IMMessage(seq: 0, msgId: "M-" + content, kind: .message, from: "alice", to: to, content: content, sentAt: 0)
    }

    @Test(arguments: TestStore.allCases)
    func entriesAreNumberedPerUidWithoutGapsAndReadBackInOrder(_ kind: TestStore) async throws {
        let store = try await Self.store(kind)
        let a1 = try store.append(Self.entry("bob", "1"), appId: "app", now: 100, expiresAt: 10_000, mailboxSize: 10)
        _ = try store.append(Self.entry("carol", "x"), appId: "app", now: 101, expiresAt: 10_000, mailboxSize: 10)
        let a2 = try store.append(Self.entry("bob", "2"), appId: "app", now: 102, expiresAt: 10_000, mailboxSize: 10)
        _ = try store.append(Self.entry("bob", "other app"), appId: "app2", now: 103, expiresAt: 10_000, mailboxSize: 10)
        #expect((a1.seq, a2.seq, a1.sentAt) == (1, 2, 100))
        #expect(try store.messages(appId: "app", uid: "bob", after: 0, limit: 10).map(\.content) == ["1", "2"])
        #expect(try store.messages(appId: "app", uid: "bob", after: 1, limit: 10) == [a2])
        #expect(try store.cursors(appId: "app", uid: "bob") == (2, 0))
        #expect(try store.accountExists(appId: "app", uid: "bob"))
        #expect(try !store.accountExists(appId: "app", uid: "dave"))
    }

    @Test(arguments: TestStore.allCases)
    func aFullMailboxDropsAcknowledgedEntriesFirstAndRefusesWhenAllAreUnread(_ kind: TestStore) async throws {
        let store = try await Self.store(kind)
        for i in 1...3 { _ = try store.append(Self.entry("bob", "\(i)"), appId: "app", now: Int64(i), expiresAt: 10_000, mailboxSize: 3) }
        #expect(throws: IMStoreError.mailboxFull(uid: "bob")) {
            try store.append(Self.entry("bob", "4"), appId: "app", now: 4, expiresAt: 10_000, mailboxSize: 3)
        }
        try store.acknowledge(appId: "app", uid: "bob", seq: 1)
        let fourth = try store.append(Self.entry("bob", "4"), appId: "app", now: 5, expiresAt: 10_000, mailboxSize: 3)
        #expect(fourth.seq == 4)
        #expect(try store.messages(appId: "app", uid: "bob", after: 0, limit: 10).map(\.content) == ["2", "3", "4"])
        // An acknowledgement beyond the newest entry stops at it; a lower one changes nothing.
        try store.acknowledge(appId: "app", uid: "bob", seq: 99)
        try store.acknowledge(appId: "app", uid: "bob", seq: 2)
        #expect(try store.cursors(appId: "app", uid: "bob") == (4, 4))
    }

    @Test(arguments: TestStore.allCases)
    func purgeDropsExpiredEntriesKeysAndFinishedCalls(_ kind: TestStore) async throws {
        let store = try await Self.store(kind)
        _ = try store.append(Self.entry("bob", "old"), appId: "app", now: 1, expiresAt: 100, mailboxSize: 10)
        _ = try store.append(Self.entry("bob", "new"), appId: "app", now: 2, expiresAt: 1000, mailboxSize: 10)
        #expect(try store.claim(appId: "app", key: "k", now: 0, expiresAt: 100))
        #expect(try !store.claim(appId: "app", key: "k", now: 50, expiresAt: 100))
        #expect(try store.purge(now: 500) == 1)
        #expect(try store.messages(appId: "app", uid: "bob", after: 0, limit: 10).map(\.content) == ["new"])
        #expect(try store.claim(appId: "app", key: "k", now: 500, expiresAt: 900))
    }

    @Test(arguments: TestStore.allCases)
    func callsMoveOutOfRingingOnceAndExpiredOnesAreListed(_ kind: TestStore) async throws {
        let store = try await Self.store(kind)
        try store.createCall(IMCall(callId: "c1", appId: "app", caller: "a", callee: "b", channel: "room", state: .ringing, createdAt: 0, expiresAt: 100))
        try store.createCall(IMCall(callId: "c2", appId: "app", caller: "a", callee: "c", channel: nil, state: .ringing, createdAt: 0, expiresAt: 50))
        #expect(try store.transitionCall(callId: "c1", from: .ringing, to: .accepted))
        #expect(try !store.transitionCall(callId: "c1", from: .ringing, to: .declined))
        #expect(try store.call(appId: "app", callId: "c1")?.state == .accepted)
        #expect(try store.call(appId: "other", callId: "c1") == nil)
        #expect(try store.expiredCalls(now: 200).map(\.callId) == ["c2"])
    }

    @Test(arguments: TestStore.allCases)
    func theSchemaIsAppliedOnceAndKeepsItsData(_ kind: TestStore) async throws {
        let database = try await kind.open()
        _ = try SQLIMStore(database: database).append(Self.entry("bob", "kept"), appId: "app", now: 1, expiresAt: 100, mailboxSize: 10)
        let again = try SQLIMStore(database: database)
        #expect(try again.messages(appId: "app", uid: "bob", after: 0, limit: 10).map(\.content) == ["kept"])
        #expect(try ModuleMigrations(name: "im", steps: []).currentVersion(of: database) == 1)
    }
}
