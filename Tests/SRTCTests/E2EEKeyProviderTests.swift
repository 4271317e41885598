import RTCCrypto
import RTCMedia
@testable import SRTCCore
import Testing

/// The shared-passphrase derivation of docs/e2ee.md ("Keys", worked example). The expected bytes
/// were computed by the web SDK's WebCrypto code (web/srtc/e2ee-sframe.js), an implementation
/// independent of OpenSSL: both SDKs derive the same keys.
struct E2EEKeyProviderTests {
    static func hex(_ text: String) -> [UInt8] { Encoding.fromHex(text)! }

    /// RFC 7914 §11, the PBKDF2-HMAC-SHA256 test vector ("passwd", "salt", c = 1, dkLen = 64).
    @Test func pbkdf2MatchesRFC7914() {
        #expect(PBKDF2.sha256(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64) == Self.hex(
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"))
    }

    @Test func aSharedPassphraseGivesTheDocumentedSenderKeys() throws {
        let provider = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let alice = try #require(provider.baseKey(for: "alice"))
        #expect(alice == Self.hex("ff0d09a28304e15b82fe349b66e4d8e8"))
        #expect(SFrameKey(baseKey: alice, keyID: 5, suite: .aes128GCMSHA256).salt == Self.hex("caf4a37f90b06b43eafd61bc"))
        #expect(provider.baseKey(for: "bob") != alice, "each sender has its own key (RFC 9605 §4.4.1)")
        #expect(E2EEKeyProvider.sharedKey(passphrase: "correct horse battery stapl").baseKey(for: "alice") != alice)
        #expect(provider.baseKey(for: "alice", index: 1) == nil, "a shared key has index 0 only")
    }

    /// Per-participant keys: the highest index is the one sent under; an older one still opens for
    /// the ratchet window, then not; a removed uid has none.
    @Test func perParticipantKeysRatchetAndRetire() async throws {
        let provider = E2EEKeyProvider.perParticipant(ratchetWindow: 0.3)
        #expect(provider.currentIndex(for: "alice") == nil && provider.baseKey(for: "alice") == nil)
        let first = provider.generation
        provider.setKey([1, 2, 3, 4], for: "alice", index: 0)
        #expect(provider.generation > first)
        #expect(provider.currentIndex(for: "alice") == 0 && provider.baseKey(for: "alice", index: 0) == [1, 2, 3, 4])
        provider.setKey([5, 6, 7, 8], for: "alice", index: 1)
        #expect(provider.currentIndex(for: "alice") == 1)
        #expect(provider.baseKey(for: "alice", index: 0) == [1, 2, 3, 4], "the old key opens within the window")
        try await Task.sleep(for: .milliseconds(500))
        #expect(provider.baseKey(for: "alice", index: 0) == nil, "and not after it")
        #expect(provider.baseKey(for: "alice", index: 1) == [5, 6, 7, 8])
        provider.removeKeys(for: "alice")
        #expect(provider.baseKey(for: "alice", index: 1) == nil && provider.currentIndex(for: "alice") == nil)
        // A key id carries its key index above 40 random bits.
        let keyID = E2EEKeyProvider.newKeyID(index: 3)
        #expect(E2EEKeyProvider.index(of: keyID) == 3 && keyID < 1 << 48)
    }
}
