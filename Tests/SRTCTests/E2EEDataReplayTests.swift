import Testing
@testable import SRTCCore

/// Encrypted data messages are accepted once (docs/e2ee.md, "Data messages", "Replays"): a
/// message seen before, or older than the replay window, is refused as `replayed`.
@Suite struct E2EEDataReplayTests {
    static let topic = Array("chat".utf8)

    /// alice's sending side and bob's receiving side, with per-participant keys.
    static func pair() -> (alice: E2EEChannelCrypto, bob: E2EEChannelCrypto, keys: E2EEKeyProvider) {
        let keys = E2EEKeyProvider.perParticipant()
        keys.setKey([UInt8](repeating: 9, count: 16), for: "alice", index: 0)
        let alice = E2EEChannelCrypto(configuration: E2EEConfiguration(keyProvider: keys))
        alice.setLocalUid("alice")
        return (alice, E2EEChannelCrypto(configuration: E2EEConfiguration(keyProvider: keys)), keys)
    }

    /// The payload bob reads from `message`, or `<state>` when it is refused.
    static func open(_ bob: E2EEChannelCrypto, _ message: [UInt8]) -> String {
        switch bob.decryptData(message, topic: topic, from: "alice") {
        case .success(let payload): return String(decoding: payload, as: UTF8.self)
        case .failure(let failure): return "<\(failure.state.rawValue)>"
        }
    }

    @Test func aReplayedMessageIsRefused() throws {
        let (alice, bob, _) = Self.pair()
        let message = try #require(alice.encryptData(Array("hello".utf8), topic: Self.topic))
        #expect(Self.open(bob, message) == "hello")
        #expect(Self.open(bob, message) == "<replayed>")
        #expect(Self.open(bob, message) == "<replayed>")
    }

    /// Out of order inside the window is fine (the lossy channel reorders); each is taken once.
    @Test func reorderedMessagesInsideTheWindowAreAccepted() throws {
        let (alice, bob, _) = Self.pair()
        let messages = try (0..<4).map { try #require(alice.encryptData(Array("m\($0)".utf8), topic: Self.topic)) }
        #expect([3, 1, 0, 2].map { Self.open(bob, messages[$0]) } == ["m3", "m1", "m0", "m2"])
        #expect(messages.map { Self.open(bob, $0) } == Array(repeating: "<replayed>", count: 4))
    }

    /// A message 1024 or more counters older than the newest one accepted (media frames take
    /// counters from the same sequence) cannot be told from a replay: refused.
    @Test func aMessageOlderThanTheWindowIsRefused() throws {
        let (alice, bob, _) = Self.pair()
        let old = try #require(alice.encryptData(Array("old".utf8), topic: Self.topic))
        for _ in 0..<1_100 { _ = alice.encrypt([0x78, 1, 2, 3], codec: .opus) }
        let new = try #require(alice.encryptData(Array("new".utf8), topic: Self.topic))
        #expect(Self.open(bob, new) == "new")
        #expect(Self.open(bob, old) == "<replayed>")
    }

    /// A forged message does not move the window, and the window outlives the keys being derived
    /// again (a key change anywhere makes the receiver derive them afresh).
    @Test func onlyAuthenticatedMessagesMoveTheWindow() throws {
        let (alice, bob, keys) = Self.pair()
        let first = try #require(alice.encryptData(Array("first".utf8), topic: Self.topic))
        let second = try #require(alice.encryptData(Array("second".utf8), topic: Self.topic))
        var forged = second
        forged[forged.count - 1] ^= 1
        #expect(Self.open(bob, forged) == "<decryptionFailed>")
        #expect(Self.open(bob, second) == "second")
        keys.setKey([UInt8](repeating: 5, count: 16), for: "carol", index: 0)
        #expect(Self.open(bob, second) == "<replayed>")
        #expect(Self.open(bob, first) == "first")
    }
}
