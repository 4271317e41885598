import RTCCrypto
import SRTCProtocol
import Testing
import TestRandom

/// Sealed strings (docs/sealed-strings.md): the worked example of the docs, computed by an
/// independent implementation (Python's hmac and the `cryptography` package's AESGCM), and every
/// way a string can be wrong.
@Suite struct SealedStringTests {
    // The docs' worked example.
    static let appKey = "5ecr3t-app-key", appId = "app_demo", uid = "alice"
    static let nonce = (0..<12).map { UInt8($0) }
    static let plaintext = "Hello, Alice! ✓"
    static let keyHex = "429e3f75b5f03bd8ae103bfea1a19213054cbe6cca097db5652b72bb2c86e8ff"
    static let sealed = "srtc1.app_demo.YWxpY2U.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc"
    static var key: [UInt8] { SealKey.derive(appKey: appKey, appId: appId, uid: uid) }

    @Test func theKeyIsHKDFOfTheAppKeyBoundToAppAndUid() {
        #expect(Encoding.hex(Self.key) == Self.keyHex)
        #expect(SealKey.encoded(appKey: Self.appKey, appId: Self.appId, uid: Self.uid) == "Qp4_dbXwO9iuEDv-oaGSEwVMvmzKCX21ZStyuyyG6P8")
        // Another uid, another app, and the 0x00 separator: all different keys.
        #expect(SealKey.derive(appKey: Self.appKey, appId: Self.appId, uid: "bob") != Self.key)
        #expect(SealKey.derive(appKey: Self.appKey, appId: "app_demo2", uid: Self.uid) != Self.key)
        #expect(SealKey.derive(appKey: "k", appId: "ab", uid: "c") != SealKey.derive(appKey: "k", appId: "a", uid: "bc"))
    }

    @Test func theWorkedExampleSealsAndOpensByteForByte() throws {
        let sealed = try #require(SealedString.seal(Self.plaintext, appId: Self.appId, uid: Self.uid, key: Self.key, nonce: Self.nonce))
        #expect(sealed.text == Self.sealed)
        let parsed = try #require(SealedString.parse(Self.sealed))
        #expect(parsed == sealed)
        #expect(parsed.appId == "app_demo" && parsed.uid == "alice")
        #expect(parsed.header == "srtc1.app_demo.YWxpY2U")
        #expect(parsed.open(key: Self.key) == Self.plaintext)
    }

    @Test func freshNoncesMakeDifferentStringsOfTheSameValue() throws {
        let a = try #require(SealedString.seal("same", appId: Self.appId, uid: Self.uid, key: Self.key))
        let b = try #require(SealedString.seal("same", appId: Self.appId, uid: Self.uid, key: Self.key))
        #expect(a.text != b.text)
        #expect(a.open(key: Self.key) == "same" && b.open(key: Self.key) == "same")
    }

    @Test func anotherUsersOrAppsKeyOpensNothing() throws {
        let parsed = try #require(SealedString.parse(Self.sealed))
        #expect(parsed.open(key: SealKey.derive(appKey: Self.appKey, appId: Self.appId, uid: "bob")) == nil)
        #expect(parsed.open(key: SealKey.derive(appKey: "another-key", appId: Self.appId, uid: Self.uid)) == nil)
    }

    /// The header is authenticated: a box moved under another uid or app does not open, even
    /// with the key of the user it now names.
    @Test func aBoxMovedToAnotherHeaderDoesNotOpen() throws {
        let box = String(Self.sealed.split(separator: ".").last!)
        let toBob = "srtc1.app_demo.\(Encoding.base64URL(Array("bob".utf8))).\(box)"
        let parsed = try #require(SealedString.parse(toBob))
        #expect(parsed.open(key: SealKey.derive(appKey: Self.appKey, appId: Self.appId, uid: "bob")) == nil)
        #expect(parsed.open(key: Self.key) == nil)
        let otherApp = try #require(SealedString.parse("srtc1.app_other.YWxpY2U.\(box)"))
        #expect(otherApp.open(key: SealKey.derive(appKey: Self.appKey, appId: "app_other", uid: Self.uid)) == nil)
    }

    /// Every single-character change of the string either fails to parse or fails to open.
    @Test func everyFlippedCharacterIsRefused() {
        let chars = Array(Self.sealed.utf8)
        for index in chars.indices {
            for replacement in [UInt8(ascii: "A"), UInt8(ascii: "x"), UInt8(ascii: "-")] where replacement != chars[index] {
                var changed = chars
                changed[index] = replacement
                let text = String(decoding: changed, as: UTF8.self)
                let opened = SealedString.parse(text).flatMap { $0.open(key: Self.key) }
                #expect(opened == nil, "\(text)")
            }
        }
    }

    @Test func truncatedStringsAreRefused() {
        for length in 0..<Self.sealed.count {
            let text = String(Self.sealed.prefix(length))
            #expect(SealedString.parse(text).flatMap { $0.open(key: Self.key) } == nil, "\(text)")
        }
    }

    @Test(arguments: [
        "", "srtc1.", "srtc1...", "srtc2.app_demo.YWxpY2U.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc",
        "srtc1..YWxpY2U.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc",          // no app id
        "srtc1.app_demo..AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc",          // no uid
        "srtc1.app_demo.YWxpY2U.",                                                                // no box
        "srtc1.app_demo.YWxpY2U.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZe",                         // box shorter than nonce + tag
        "srtc1.app_demo.YWxpY2V.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc",   // non-canonical base64url (unused bits)
        "srtc1.app_demo.YWxpY2U=.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc",  // padding
        "srtc1.app_demo.YSBi.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc",      // uid "a b" breaks the naming rules
        "srtc1.app\u{1}demo.YWxpY2U.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc", // control character in the app id
        "srtc1.app_demo.YWxpY2U.AAECAwQFBgcICQoLs60+R0BLNXOLifaytTu7jZeyEqf/5JCZ0f6KDwBQD6Mc",   // base64, not base64url
    ])
    func malformedStringsAreRefused(_ text: String) {
        #expect(SealedString.parse(text) == nil)
    }

    @Test func appIdsWithDotsAreSplitFromTheRight() throws {
        let key = SealKey.derive(appKey: Self.appKey, appId: "corp.app.v2", uid: "bob")
        let sealed = try #require(SealedString.seal("x", appId: "corp.app.v2", uid: "bob", key: key))
        let parsed = try #require(SealedString.parse(sealed.text))
        #expect(parsed.appId == "corp.app.v2" && parsed.uid == "bob")
        #expect(parsed.open(key: key) == "x")
    }

    @Test func theSizeLimitsAreTheDocumentedOnes() throws {
        let largest = String(repeating: "é", count: SealedString.maxPlaintextBytes / 2)   // 65,536 bytes
        let sealed = try #require(SealedString.seal(largest, appId: Self.appId, uid: Self.uid, key: Self.key))
        #expect(SealedString.parse(sealed.text)?.open(key: Self.key) == largest)
        #expect(SealedString.seal(largest + "a", appId: Self.appId, uid: Self.uid, key: Self.key) == nil)
        #expect(SealedString.seal("", appId: Self.appId, uid: Self.uid, key: Self.key)?.open(key: Self.key) == "")
        #expect(SealedString.seal("x", appId: Self.appId, uid: "not valid", key: Self.key) == nil)
        #expect(SealedString.seal("x", appId: "", uid: Self.uid, key: Self.key) == nil)
        #expect(SealedString.seal("x", appId: String(repeating: "a", count: 257), uid: Self.uid, key: Self.key) == nil)
        // One byte past the longest string is refused before decoding.
        #expect(SealedString.parse(String(repeating: "A", count: SealedString.maxLength + 1)) == nil)
    }

    /// Seeded random strings and random mutations of a valid one: parsing never traps, and
    /// whatever parses prints back to the same text (one spelling per box).
    @Test func seededRandomInputNeverCrashesAndParsedStringsRoundTrip() {
        var rng = SeededRandom(seed: 0x5EA1)
        let alphabet = Array("srtc1.app_demoYWxpY2UAECAwQFBgcICQoL-_=+/\u{0}é".utf8)
        let valid = Array(Self.sealed.utf8)
        for round in 0..<3000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0..<160, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                    case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: Int.random(in: 0...bytes.count, using: &rng))
                    default: if bytes.count > 1 { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng)) }
                    }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let parsed = SealedString.parse(text) {
                #expect(parsed.text == text)
                if text != Self.sealed { #expect(parsed.open(key: Self.key) == nil, "\(text)") }
            }
        }
    }
}
