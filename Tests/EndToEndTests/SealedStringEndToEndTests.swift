import Foundation
import IMServer
import SRTC
import SRTCProtocol
import SRTCTestSupport
import Testing
import TestWait

/// `SRTCEngine.decrypt` end to end (docs/sealed-strings.md): the backend seals with
/// `POST /server/v1/seal` (or locally with `app_key`), the string travels through a channel
/// message, and the SDK opens it with the key the server sent at join or IM login, for that user
/// only. The keyring is process-wide and every test server here shares one app, so the uids are
/// this suite's own: no other test joins them.
@Suite(.serialized) struct SealedStringEndToEndTests {
    static func engine() -> SRTCEngine {
        SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "seal-test-events"), logLevel: .off))
    }

    static func seal(_ server: TestServer, uid: String, value: String) async throws -> String {
        let (status, answer) = try await server.call("/server/v1/seal", ["uid": uid, "value": value])
        #expect(status == 200)
        return try #require(answer["sealed"] as? String, "\(answer)")
    }

    @Test func aStringSealedByTheServerReachesTheJoinedUserThroughAChannelAndOpensThereOnly() async throws {
        let server = try TestServer()
        let secret = "door code 4711 — ✓"
        let early = try await Self.seal(server, uid: "seal-alice", value: secret)
        // Before Alice joins, this process has no key for her.
        #expect(SRTCEngine.decrypt(early) == nil)

        let engine = Self.engine()
        let channel = try engine.createChannel()
        let events = SDKEventRecorder()
        channel.delegates.add(delegate: events)
        _ = try await channel.join(url: server.url, token: server.token(uid: "seal-alice", channel: "sealed"))
        #expect(SRTCEngine.decrypt(early) == secret)

        // The backend sends a fresh one through the channel (an untrusted path): it arrives sealed.
        let sealed = try await Self.seal(server, uid: "seal-alice", value: secret)
        #expect(sealed != early)   // a fresh nonce
        let (status, _) = try await server.call("/server/v1/channel/message", ["channel": "sealed", "to": ["seal-alice"], "data": sealed])
        #expect(status == 200)
        try await events.wait("the sealed message") { _ in !events.messages.isEmpty }
        let received = try #require(events.messages.first?.data)
        #expect(received == sealed && !received.contains("4711"))
        #expect(SRTCEngine.decrypt(received) == secret)

        // A backend holding app_key seals the same way locally.
        let key = SealKey.derive(appKey: TestServer.appKey, appId: TestServer.appId, uid: "seal-alice")
        let local = try #require(SealedString.seal("sealed at home", appId: TestServer.appId, uid: "seal-alice", key: key))
        #expect(SRTCEngine.decrypt(local.text) == "sealed at home")

        // Sealed for a user who never joined in this process, changed, cut, for another app: nil.
        #expect(SRTCEngine.decrypt(try await Self.seal(server, uid: "seal-nobody", value: secret)) == nil)
        var flipped = Array(sealed.utf8)
        flipped[flipped.count - 5] = flipped[flipped.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(SRTCEngine.decrypt(String(decoding: flipped, as: UTF8.self)) == nil)
        #expect(SRTCEngine.decrypt(String(sealed.dropLast(3))) == nil)
        #expect(SRTCEngine.decrypt(sealed.replacingOccurrences(of: "srtc1.\(TestServer.appId).", with: "srtc1.app_other.")) == nil)
        let otherAppKey = SealKey.derive(appKey: TestServer.appKey, appId: "app_other", uid: "seal-alice")
        #expect(SRTCEngine.decrypt(SealedString.seal(secret, appId: "app_other", uid: "seal-alice", key: otherAppKey)?.text) == nil)
        #expect(SRTCEngine.decrypt(nil) == nil)
        #expect(SRTCEngine.decrypt("door code 4711") == nil)

        await channel.leave()
        // The key outlives the channel: the app may open what arrived before it left.
        #expect(SRTCEngine.decrypt(received) == secret)
        await engine.destroy()
        await server.stop()
    }

    /// The IM login answer carries the key too: a user who only enabled IM opens strings sealed
    /// for them, and not another user's.
    @Test func theIMLoginGivesTheKeyToo() async throws {
        let server = try TestServer(modules: [IMModule.factory])
        let forBob = try await Self.seal(server, uid: "seal-im-bob", value: "for bob")
        let forCarol = try await Self.seal(server, uid: "seal-im-carol", value: "for carol")
        #expect(SRTCEngine.decrypt(forBob) == nil)
        let engine = Self.engine()
        try await engine.enableIm(url: server.httpBase, token: server.imToken(uid: "seal-im-bob"), delegate: nil)
        #expect(SRTCEngine.decrypt(forBob) == "for bob")
        #expect(SRTCEngine.decrypt(forCarol) == nil)
        await engine.destroy()
        await server.stop()
    }
}
