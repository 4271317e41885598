import Foundation
import Testing
import RTCCrypto
@testable import SRTCProtocol
import TestRandom

@Suite struct AccessTokenTests {
    let key = "app-key-for-tests"
    let now: Int64 = 1_800_000_000

    func claims(nbf: Int64? = nil, exp: Int64? = nil) -> TokenClaims {
        TokenClaims(iss: "app1", sub: "alice", iat: now, nbf: nbf ?? now, exp: exp ?? now + 3600, jti: "j1",
                    grant: ChannelGrant(channel: "room", publish: true, subscribe: false, publishData: true))
    }

    func keys(_ iss: String) -> String? { iss == "app1" ? key : nil }

    @Test func grantedTokenVerifiesAndKeepsItsClaims() throws {
        let token = AccessToken.sign(claims(), key: key)
        let verified = try AccessToken.verify(token, now: now + 10, keyForIssuer: keys)
        #expect(verified == claims())
        #expect(verified.grant?.subscribe == false)
    }

    @Test func headerIsHS256JWT() throws {
        let token = AccessToken.sign(claims(), key: key)
        let header = try #require(Encoding.fromBase64URL(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"HS256","typ":"JWT"}"#)
    }

    @Test func expiredTokenFails() {
        let token = AccessToken.sign(claims(exp: now - 60), key: key)
        #expect(throws: TokenError.expired) { try AccessToken.verify(token, now: now, keyForIssuer: keys) }
    }

    @Test func notYetValidTokenFails() {
        let token = AccessToken.sign(claims(nbf: now + 600), key: key)
        #expect(throws: TokenError.notYetValid) { try AccessToken.verify(token, now: now, keyForIssuer: keys) }
    }

    static let extremeTimes: [(Int64, Int64, TokenError?)] = [
        (Int64.max, Int64.min, nil), (Int64.max - 1, 0, nil), (Int64.min, Int64.min, .expired),
        (Int64.max, Int64.max, .notYetValid), (Int64.max, Int64.max - 4, .notYetValid), (Int64.min + 2, 0, .expired)]

    @Test(arguments: extremeTimes)
    func timesAtTheEndsOfInt64AreDecidedWithoutOverflow(_ exp: Int64, _ nbf: Int64, _ error: TokenError?) throws {
        let token = AccessToken.sign(claims(nbf: nbf, exp: exp), key: key)
        for time in [now, Int64.max, Int64.min] where time == now || error == nil {
            if let error {
                #expect(throws: error) { try AccessToken.verify(token, now: time, keyForIssuer: keys) }
            } else if time == now {
                #expect(try AccessToken.verify(token, now: time, keyForIssuer: keys).exp == exp)
            } else {
                _ = try? AccessToken.verify(token, now: time, keyForIssuer: keys)   // must not trap
            }
        }
    }

    @Test func wrongKeyFails() {
        let token = AccessToken.sign(claims(), key: "another-key")
        #expect(throws: TokenError.badSignature) { try AccessToken.verify(token, now: now, keyForIssuer: keys) }
    }

    @Test func unknownIssuerFails() {
        var c = claims()
        c.iss = "app2"
        let token = AccessToken.sign(c, key: key)
        #expect(throws: TokenError.unknownIssuer) { try AccessToken.verify(token, now: now, keyForIssuer: keys) }
    }

    @Test func tamperedPayloadFails() throws {
        let token = AccessToken.sign(claims(), key: key)
        var parts = token.split(separator: ".").map(String.init)
        var payload = try #require(Encoding.fromBase64URL(parts[1]))
        let text = String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "alice", with: "mallory")
        payload = Array(text.utf8)
        parts[1] = Encoding.base64URL(payload)
        #expect(throws: TokenError.badSignature) { try AccessToken.verify(parts.joined(separator: "."), now: now, keyForIssuer: keys) }
    }

    @Test func tamperedSignatureLastCharacterFails() {
        let token = AccessToken.sign(claims(), key: key)
        let last = token.last!
        let tampered = String(token.dropLast()) + (last == "A" ? "B" : "A")
        #expect(throws: TokenError.self) { try AccessToken.verify(tampered, now: now, keyForIssuer: keys) }
    }

    @Test func algNoneIsRejected() {
        let header = Encoding.base64URL(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let signed = AccessToken.sign(claims(), key: key).split(separator: ".")
        let token = header + "." + signed[1] + "."
        #expect(throws: TokenError.malformed) { try AccessToken.verify(token, now: now, keyForIssuer: keys) }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!.??.**", "eyJhbGciOiJIUzI1NiJ9..", String(repeating: "a", count: 9000)])
    func malformedTokensFail(_ token: String) {
        #expect(throws: TokenError.self) { try AccessToken.verify(token, now: now, keyForIssuer: keys) }
    }

    @Test func decodeUnverifiedReadsClaimsOfAnyKey() throws {
        let token = AccessToken.sign(claims(), key: "whatever")
        #expect(try AccessToken.decodeUnverified(token).sub == "alice")
    }

    @Test func seededRandomTokensNeverVerify() {
        var rng = SeededRandom(seed: 42)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<200, using: &rng)
            let token = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            #expect(throws: TokenError.self) { try AccessToken.verify(token, now: now, keyForIssuer: keys) }
        }
    }
}

@Suite struct IdentifierTests {
    @Test(arguments: ["a", "room-1", "user_2.x@corp", "A=B+C", String(repeating: "x", count: 64)])
    func validIdentifiers(_ id: String) { #expect(Identifier.isValid(id)) }

    @Test(arguments: ["", "has space", "slash/", "quote\"", "ümlaut", String(repeating: "x", count: 65), "new\nline"])
    func invalidIdentifiers(_ id: String) { #expect(!Identifier.isValid(id)) }
}

@Suite struct TokenJSONTests {
    @Test(arguments: [
        TokenClaims(iss: "a", sub: "u", iat: 1, nbf: 2, exp: 3, jti: "j", grant: ChannelGrant(channel: "c", publish: false)),
        TokenClaims(iss: "a", sub: "mcu", iat: 1, nbf: 2, exp: 3, jti: "j", grant: ChannelGrant(channel: "c", publishData: false, hidden: true)),
        TokenClaims(iss: "a", sub: "mcu", iat: 1, nbf: 2, exp: 3, jti: "j", grant: ChannelGrant(channel: "c", hidden: true, serverPublisher: true)),
        TokenClaims(iss: "a", sub: "u", iat: 1, nbf: 2, exp: 3, jti: "j", member: MemberGrant(nickname: "Li \"Lei\"\n\\ 李雷 \u{1}")),
        TokenClaims(iss: "a", sub: "u", iat: -1, nbf: 0, exp: Int64.max, jti: "", member: MemberGrant(nickname: nil)),
        TokenClaims(iss: "a", sub: "u", iat: 1, nbf: 2, exp: 3, jti: "j", im: IMGrant(nickname: "Bob \"B\"")),
        TokenClaims(iss: "a", sub: "u", iat: 1, nbf: 2, exp: 3, jti: "j", speedTest: SpeedTestGrant()),
    ])
    func handWrittenClaimsJSONDecodesBackToTheSameClaims(_ claims: TokenClaims) throws {
        let decoded = try JSONDecoder().decode(TokenClaims.self, from: Data(claims.jsonBytes))
        #expect(decoded == claims)
    }

    @Test func claimsJSONHasSortedKeys() {
        let claims = TokenClaims(iss: "a", sub: "u", iat: 1, nbf: 2, exp: 3, jti: "j", grant: ChannelGrant(channel: "c"))
        #expect(String(decoding: claims.jsonBytes, as: UTF8.self)
            == #"{"exp":3,"grant":{"channel":"c","publish":true,"publish_data":true,"subscribe":true},"iat":1,"iss":"a","jti":"j","nbf":2,"sub":"u"}"#)
        let im = TokenClaims(iss: "a", sub: "u", iat: 1, nbf: 2, exp: 3, jti: "j", im: IMGrant(nickname: "B"), speedTest: SpeedTestGrant())
        #expect(String(decoding: im.jsonBytes, as: UTF8.self)
            == #"{"exp":3,"iat":1,"im":{"nickname":"B"},"iss":"a","jti":"j","nbf":2,"speed_test":{},"sub":"u"}"#)
    }

    @Test func aHiddenGrantIsWrittenOnlyWhenSetAndReadAsFalseWhenAbsent() throws {
        let hidden = TokenClaims(iss: "a", sub: "mcu", iat: 1, nbf: 2, exp: 3, jti: "j", grant: ChannelGrant(channel: "c", hidden: true))
        #expect(String(decoding: hidden.jsonBytes, as: UTF8.self)
            == #"{"exp":3,"grant":{"channel":"c","hidden":true,"publish":true,"publish_data":true,"subscribe":true},"iat":1,"iss":"a","jti":"j","nbf":2,"sub":"mcu"}"#)
        let old = #"{"channel":"c","publish":true,"publish_data":false,"subscribe":true}"#
        #expect(try JSONDecoder().decode(ChannelGrant.self, from: Data(old.utf8)) == ChannelGrant(channel: "c", publishData: false))
        #expect(try String(decoding: JSONEncoder().encode(ChannelGrant(channel: "c")), as: UTF8.self).contains("hidden") == false)
    }

    @Test func aServerPublisherGrantIsWrittenOnlyWhenSetAndReadAsFalseWhenAbsent() throws {
        let worker = TokenClaims(iss: "a", sub: "mcu", iat: 1, nbf: 2, exp: 3, jti: "j", grant: ChannelGrant(channel: "c", serverPublisher: true))
        #expect(String(decoding: worker.jsonBytes, as: UTF8.self)
            == #"{"exp":3,"grant":{"channel":"c","publish":true,"publish_data":true,"server_publisher":true,"subscribe":true},"iat":1,"iss":"a","jti":"j","nbf":2,"sub":"mcu"}"#)
        let old = #"{"channel":"c","publish":true,"publish_data":true,"subscribe":true}"#
        #expect(try JSONDecoder().decode(ChannelGrant.self, from: Data(old.utf8)).serverPublisher == false)
        #expect(try String(decoding: JSONEncoder().encode(ChannelGrant(channel: "c")), as: UTF8.self).contains("server_publisher") == false)
    }
}
