import Testing
import RTCCrypto

@Suite struct DigestTests {
    @Test func sha256OfABCMatchesFIPS180Vector() {
        #expect(Encoding.hex(Digest.sha256(Array("abc".utf8)))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func sha256OfEmptyInput() {
        #expect(Encoding.hex(Digest.sha256([UInt8]()))
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    // RFC 4231 §4.3, test case 2.
    @Test func hmacSHA256MatchesRFC4231Case2() {
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Encoding.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    // RFC 2202 §3, test case 2.
    @Test func hmacSHA1MatchesRFC2202Case2() {
        let mac = Digest.hmacSHA1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Encoding.hex(mac) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    }

    @Test func constantTimeEqualsDetectsLastByteDifference() {
        #expect(ConstantTime.equals("abcdef", "abcdef"))
        #expect(!ConstantTime.equals("abcdef", "abcdee"))
        #expect(!ConstantTime.equals("abc", "abcd"))
    }

    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func base64URLMatchesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Encoding.base64URL(Array(plain.utf8)) == encoded)
        #expect(Encoding.fromBase64URL(encoded) == Array(plain.utf8))
    }

    @Test func base64PadsAndRejectsForeignCharacters() {
        #expect(Encoding.base64(Array("fo".utf8)) == "Zm8=")
        #expect(Encoding.fromBase64("Zm8=") == Array("fo".utf8))
        #expect(Encoding.fromBase64URL("Zm+v") == nil)
        #expect(Encoding.fromBase64URL("Z") == nil)
    }

    @Test func hexRoundTripsAndRejectsOddLength() {
        #expect(Encoding.hex([0x00, 0xab, 0xff]) == "00abff")
        #expect(Encoding.fromHex("00ABff") == [0x00, 0xab, 0xff])
        #expect(Encoding.fromHex("abc") == nil)
        #expect(Encoding.fromHex("zz") == nil)
    }

    @Test func randomStringsUseTheAlphabetAndDiffer() {
        let a = SecureRandom.string(count: 24)
        let b = SecureRandom.string(count: 24)
        #expect(a.count == 24)
        #expect(a != b)
        #expect(a.allSatisfy { $0.isLetter || $0.isNumber })
    }
}
