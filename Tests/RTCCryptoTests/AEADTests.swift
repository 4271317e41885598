import RTCCrypto
import Testing

private func hex(_ text: String) -> [UInt8] { Encoding.fromHex(text)! }

/// HKDF-SHA256 against RFC 5869's test vectors (Appendix A).
struct HKDFTests {
    /// A.1: basic test case with SHA-256.
    @Test func rfc5869TestCase1() {
        let okm = HKDF.sha256(ikm: [UInt8](repeating: 0x0b, count: 22), salt: hex("000102030405060708090a0b0c"),
                              info: hex("f0f1f2f3f4f5f6f7f8f9"), length: 42)
        #expect(Encoding.hex(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    /// A.2: longer inputs and outputs (80 bytes each, 82 bytes out: three expand blocks).
    @Test func rfc5869TestCase2() {
        let okm = HKDF.sha256(ikm: (0x00...0x4f).map { UInt8($0) }, salt: (0x60...0xaf).map { UInt8($0) },
                              info: (0xb0...0xff).map { UInt8($0) }, length: 82)
        #expect(Encoding.hex(okm) == "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87")
    }

    /// A.3: zero-length salt and info (the salt then stands for 32 zero bytes).
    @Test func rfc5869TestCase3() {
        let okm = HKDF.sha256(ikm: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [], length: 42)
        #expect(Encoding.hex(okm) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }
}

/// AES-256-GCM against the test cases of the GCM specification (McGrew and Viega, "The Galois/
/// Counter Mode of Operation", test cases 13–16, the 256-bit key ones), and its refusals.
struct AESGCMTests {
    /// Test case 13: zero key, zero IV, empty plaintext: the tag alone.
    @Test func testCase13EmptyPlaintext() {
        let sealed = AESGCM.seal(key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12), plaintext: [], aad: [])
        #expect(Encoding.hex(sealed) == "530f8afbc74536b9a963b4f1c4cb738b")
        #expect(AESGCM.open(key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12), sealed: sealed, aad: []) == [])
    }

    /// Test case 14: zero key, zero IV, one zero block.
    @Test func testCase14OneBlock() {
        let sealed = AESGCM.seal(key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
                                 plaintext: [UInt8](repeating: 0, count: 16), aad: [])
        #expect(Encoding.hex(sealed) == "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")
    }

    static let key16 = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
    static let iv16 = hex("cafebabefacedbaddecaf888")
    static let plaintext16 = hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
    static let aad16 = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    static let sealed16 = hex("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
                              + "76fc6ece0f4e1768cddf8853bb2d551b")

    /// Test case 16: 60 bytes (a partial last block) with 20 bytes of additional data.
    @Test func testCase16WithAdditionalData() {
        #expect(AESGCM.seal(key: Self.key16, nonce: Self.iv16, plaintext: Self.plaintext16, aad: Self.aad16) == Self.sealed16)
        #expect(AESGCM.open(key: Self.key16, nonce: Self.iv16, sealed: Self.sealed16, aad: Self.aad16) == Self.plaintext16)
    }

    /// Any change to the ciphertext, the tag, the additional data, the nonce or the key fails the
    /// tag check: nothing is returned.
    @Test func anyChangeFailsAuthentication() {
        for index in [0, 30, Self.sealed16.count - 16, Self.sealed16.count - 1] {
            var flipped = Self.sealed16
            flipped[index] ^= 0x01
            #expect(AESGCM.open(key: Self.key16, nonce: Self.iv16, sealed: flipped, aad: Self.aad16) == nil, "byte \(index)")
        }
        var aad = Self.aad16
        aad[0] ^= 0x80
        #expect(AESGCM.open(key: Self.key16, nonce: Self.iv16, sealed: Self.sealed16, aad: aad) == nil)
        #expect(AESGCM.open(key: Self.key16, nonce: Self.iv16, sealed: Self.sealed16, aad: []) == nil)
        var nonce = Self.iv16
        nonce[11] ^= 1
        #expect(AESGCM.open(key: Self.key16, nonce: nonce, sealed: Self.sealed16, aad: Self.aad16) == nil)
        var key = Self.key16
        key[31] ^= 1
        #expect(AESGCM.open(key: key, nonce: Self.iv16, sealed: Self.sealed16, aad: Self.aad16) == nil)
        #expect(AESGCM.open(key: Self.key16, nonce: Self.iv16, sealed: Array(Self.sealed16.dropLast()), aad: Self.aad16) == nil)
    }

    @Test func wrongSizesAreRefusedNotTrapped() {
        #expect(AESGCM.open(key: Array(Self.key16.prefix(16)), nonce: Self.iv16, sealed: Self.sealed16, aad: []) == nil)
        #expect(AESGCM.open(key: Self.key16, nonce: Array(Self.iv16.prefix(8)), sealed: Self.sealed16, aad: []) == nil)
        #expect(AESGCM.open(key: Self.key16, nonce: Self.iv16, sealed: [UInt8](repeating: 0, count: 15), aad: []) == nil)
    }
}
