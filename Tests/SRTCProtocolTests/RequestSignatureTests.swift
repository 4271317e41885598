import Foundation
import Testing
@testable import SRTCProtocol

/// The vectors in Fixtures/signing-vectors.json were computed with Python's hmac/hashlib;
/// interop/test_signing_vectors.py recomputes them from the same file, so the recipe is checked
/// by two implementations.
struct SigningVector: Decodable, Sendable, CustomTestStringConvertible {
    var name, app_key, app_id, nonce, timestamp, method, path_and_query, body, body_sha256, string_to_sign, signature: String
    var testDescription: String { name }

    static func load() -> [SigningVector] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/signing-vectors.json")
        guard let data = try? Data(contentsOf: url), let vectors = try? JSONDecoder().decode([SigningVector].self, from: data) else { return [] }
        return vectors
    }
}

@Suite struct RequestSignatureTests {
    @Test func fixtureFileHasVectors() {
        #expect(SigningVector.load().count == 3)
    }

    @Test(arguments: SigningVector.load())
    func stringToSignMatchesVector(_ v: SigningVector) {
        let s = RequestSignature.stringToSign(appId: v.app_id, nonce: v.nonce, timestamp: v.timestamp,
                                              method: v.method, pathAndQuery: v.path_and_query, body: Array(v.body.utf8))
        #expect(s == v.string_to_sign)
    }

    @Test(arguments: SigningVector.load())
    func signatureMatchesVector(_ v: SigningVector) {
        let sig = RequestSignature.sign(appKey: v.app_key, appId: v.app_id, nonce: v.nonce, timestamp: v.timestamp,
                                        method: v.method, pathAndQuery: v.path_and_query, body: Array(v.body.utf8))
        #expect(sig == v.signature)
    }

    @Test func workedExampleOfTheDocs() {
        // The example of docs/server-api.md, spelled out so a change to the recipe shows here.
        let sig = RequestSignature.sign(appKey: "demo_key_0123456789abcdef", appId: "app_demo", nonce: "3f2a9c1d",
                                        timestamp: "1767225600", method: "post", pathAndQuery: "/server/v1/channel/grant",
                                        body: Array(#"{"channel":"room1","uid":"alice"}"#.utf8))
        #expect(sig == "93ec0f5863881ddcab4b6ba18175e31659704c244dfd25d777f6fe3bf4894a8b")
    }

    @Test func headersCarryAllFourFieldsWithFreshNonces() {
        let a = RequestSignature.headers(appId: "a", appKey: "k", method: "GET", pathAndQuery: "/x", body: [], timestamp: 10)
        let b = RequestSignature.headers(appId: "a", appKey: "k", method: "GET", pathAndQuery: "/x", body: [], timestamp: 10)
        #expect(a.map(\.0) == ["app_id", "nonce", "timestamp", "signature"])
        #expect(a[1].1 != b[1].1)
        #expect(a[3].1 == RequestSignature.sign(appKey: "k", appId: "a", nonce: a[1].1, timestamp: "10", method: "GET", pathAndQuery: "/x", body: []))
    }
}
