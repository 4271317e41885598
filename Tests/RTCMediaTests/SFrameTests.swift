import RTCCrypto
import RTCMedia
import Testing

/// SFrame (RFC 9605) against the RFC's own test vectors (Appendix C), and the E2EE frame layout of
/// docs/e2ee.md built on it.
struct SFrameTests {
    static func hex(_ text: String) -> [UInt8] { Encoding.fromHex(text.replacingOccurrences(of: " ", with: ""))! }

    /// RFC 9605 Appendix C.5, the AES-GCM suites: kid 0x123, ctr 0x4567, base key 00…0f,
    /// metadata "IETF SFrame WG", plaintext "draft-ietf-sframe-enc".
    static let vectors: [(suite: SFrameCipherSuite, key: String, salt: String, ciphertext: String)] = [
        (.aes128GCMSHA256, "d34f547f4ca4f9a7 447006fe7fcbf768", "75234edefe078190 26751816",
         "9901234567b7412c 2513a1b66dbb4884 1bbaf17f59875117 6ad847681a69c6d0 b091c07018ce4adb 34eb"),
        (.aes256GCMSHA512, "d3e27b0d4a5ae9e5 5df01a70e6d4d28d 969b246e2936f4b7 a5d9b494da6b9633", "84991c167b8cd23c 93708ec7",
         "990123456794f509 d36e9beacb0e261d 99c7d1e972f1fed7 87d4049f17ca2135 3c1cc24d56ceabce d279"),
    ]
    static let baseKey = hex("0001020304050607 08090a0b0c0d0e0f")
    static let metadata = Array("IETF SFrame WG".utf8)
    static let plaintext = Array("draft-ietf-sframe-enc".utf8)

    @Test(arguments: vectors.indices)
    func derivesTheRFCsKeyAndSalt(index: Int) {
        let vector = Self.vectors[index]
        let key = SFrameKey(baseKey: Self.baseKey, keyID: 0x123, suite: vector.suite)
        #expect(key.key == Self.hex(vector.key))
        #expect(key.salt == Self.hex(vector.salt))
    }

    @Test(arguments: vectors.indices)
    func encryptsToTheRFCsCiphertextAndBack(index: Int) throws {
        let vector = Self.vectors[index]
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: Self.baseKey, keyID: 0x123, suite: vector.suite), counter: 0x4567)
        var out: [UInt8] = []
        let header = try Self.plaintext.withUnsafeBytes { pt in
            try Self.metadata.withUnsafeBytes { try encryptor.encrypt(pt, metadata: $0, appendingTo: &out) }
        }
        #expect(header == SFrameHeader(keyID: 0x123, counter: 0x4567))
        #expect(out == Self.hex(vector.ciphertext))
        #expect(encryptor.counter == 0x4568)

        let decryptor = SFrameDecryptor(suite: vector.suite)
        decryptor.setKey(baseKey: Self.baseKey, keyID: 0x123)
        var back: [UInt8] = [0xaa]
        try out.withUnsafeBytes { ct in try Self.metadata.withUnsafeBytes { _ = try decryptor.decrypt(ct, metadata: $0, appendingTo: &back) } }
        #expect(back == [0xaa] + Self.plaintext, "appends after what the buffer held")
    }

    @Test func anyChangedByteOrOtherMetadataFailsAndAppendsNothing() throws {
        let suite = SFrameCipherSuite.aes128GCMSHA256
        let ciphertext = Self.hex(Self.vectors[0].ciphertext)
        let decryptor = SFrameDecryptor(suite: suite)
        decryptor.setKey(baseKey: Self.baseKey, keyID: 0x123)
        for index in 5 ..< ciphertext.count {
            var changed = ciphertext
            changed[index] ^= 0x01
            var out: [UInt8] = []
            #expect(throws: SFrameError.authenticationFailed) {
                try changed.withUnsafeBytes { ct in try Self.metadata.withUnsafeBytes { _ = try decryptor.decrypt(ct, metadata: $0, appendingTo: &out) } }
            }
            #expect(out.isEmpty)
        }
        var out: [UInt8] = []
        #expect(throws: SFrameError.authenticationFailed) {
            try ciphertext.withUnsafeBytes { try decryptor.decrypt($0, metadata: UnsafeRawBufferPointer(start: nil, count: 0), appendingTo: &out) }
        }
        decryptor.removeKey(keyID: 0x123)
        #expect(throws: SFrameError.unknownKeyID(0x123)) {
            try ciphertext.withUnsafeBytes { ct in try Self.metadata.withUnsafeBytes { _ = try decryptor.decrypt(ct, metadata: $0, appendingTo: &out) } }
        }
    }

    /// Headers in RFC 9605 §4.3's forms: values 0–7 inside the config byte, larger ones after it in
    /// their shortest big-endian form, key id first.
    @Test(arguments: [
        (UInt64(0), UInt64(0), "00"), (1, 2, "12"), (7, 7, "77"), (0, 8, "0808"), (8, 0, "8008"),
        (0x123, 0x4567, "9901234567"), (0, 0xff, "08ff"), (0, 0x100, "090100"),
        (0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, "ffffffffffffffffffffffffffffffffff"),
    ])
    func headersWriteAndParseInTheirOneShortestForm(keyID: UInt64, counter: UInt64, encoded: String) throws {
        let header = SFrameHeader(keyID: keyID, counter: counter)
        #expect(header.bytes == Self.hex(encoded))
        #expect(header.encodedLength == encoded.count / 2)
        let parsed = try Self.hex(encoded).withUnsafeBytes { try SFrameHeader.parse($0) }
        #expect(parsed.header == header && parsed.length == encoded.count / 2)
    }

    @Test(arguments: [("8007", SFrameError.nonMinimalHeader), ("900008", .nonMinimalHeader), ("0900ff", .nonMinimalHeader),
                      ("", .truncated), ("99012345", .truncated), ("f0", .truncated), ("0f00", .truncated)])
    func malformedHeadersAreRefused(encoded: String, error: SFrameError) {
        #expect(throws: error) { try Self.hex(encoded).withUnsafeBytes { _ = try SFrameHeader.parse($0) } }
    }

    /// docs/e2ee.md's frame layout: VP8 key frames keep 10 bytes clear, delta frames 3, Opus its
    /// TOC byte; the clear bytes are authenticated (changing one fails) and the rest is not readable.
    @Test(arguments: [(E2EEFrame.Codec.vp8, [UInt8]([0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01]) + Array(repeating: 0x11, count: 300), 10),
                      (.vp8, [0x31, 0x07, 0x00] + Array(repeating: 0x22, count: 120), 3),
                      (.opus, [0x78] + Array(repeating: 0x33, count: 80), 1)])
    func framesKeepTheirCodecsClearBytesAndRoundTrip(codec: E2EEFrame.Codec, frame: [UInt8], clear: Int) throws {
        let key = SFrameKey(baseKey: Array(repeating: 7, count: 16), keyID: 3, suite: .aes128GCMSHA256)
        let encryptor = SFrameEncryptor(key: key)
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Array(repeating: 7, count: 16), keyID: 3)
        var encrypted: [UInt8] = []
        try frame.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: codec, with: encryptor, appendingTo: &encrypted) }
        #expect(Array(encrypted.prefix(clear)) == Array(frame.prefix(clear)))
        #expect(encrypted.count == frame.count + 1 + 16, "a one-byte header (kid 3, ctr 0) and the tag")
        #expect(encrypted[clear] == 0x30, "the SFrame header follows the clear bytes")
        #expect(!encrypted.dropFirst(clear + 1).starts(with: frame.dropFirst(clear).prefix(8)), "the rest is ciphertext")
        var decrypted: [UInt8] = []
        try encrypted.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: codec, with: decryptor, appendingTo: &decrypted) }
        #expect(decrypted == frame)

        var changed = encrypted
        changed[clear - 1] ^= 0x40
        var out: [UInt8] = []
        #expect(throws: SFrameError.self) { try changed.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: codec, with: decryptor, appendingTo: &out) } }
        #expect(out.isEmpty)
    }

    @Test func framesTooShortForTheirCodecAreRefused() {
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: [1, 2, 3], keyID: 0, suite: .aes128GCMSHA256))
        var out: [UInt8] = []
        for (codec, frame) in [(E2EEFrame.Codec.vp8, [UInt8]([0x50, 0x42])), (.vp8, [0x50, 0, 0, 0x9d]), (.opus, [])] {
            #expect(throws: SFrameError.malformedFrame) { try frame.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: codec, with: encryptor, appendingTo: &out) } }
        }
        #expect(out.isEmpty && encryptor.counter == 0)
    }

    /// Each frame takes the next counter, so no nonce repeats under one key.
    @Test func everyFrameGetsTheNextCounter() throws {
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: [9], keyID: 1, suite: .aes256GCMSHA512))
        var headers: [SFrameHeader] = []
        for _ in 0..<10 {
            var out: [UInt8] = []
            headers.append(try [UInt8](repeating: 0, count: 4).withUnsafeBytes { try encryptor.encrypt($0, metadata: UnsafeRawBufferPointer(start: nil, count: 0), appendingTo: &out) })
        }
        #expect(headers.map(\.counter) == Array(0..<10))
    }
}
