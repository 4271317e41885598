import RTCCrypto
import RTCMedia
import Testing

/// End-to-end encrypted data messages (docs/e2ee.md, "Data messages"): the worked example that the
/// web SDK's WebCrypto code produces byte for byte, the topic bound to the ciphertext, the marker.
struct E2EEDataTests {
    static func hex(_ text: String) -> [UInt8] { Encoding.fromHex(text.replacingOccurrences(of: " ", with: ""))! }
    /// RFC 9605 Appendix C's base key 00…0f.
    static let baseKey = hex("0001020304050607 08090a0b0c0d0e0f")
    /// docs/e2ee.md's worked example: kid 0x123, counter 0x4567, topic "chat", payload "hello".
    /// marker ff534601 | header 99 0123 4567 | ciphertext (5) | tag (16)
    static let example = hex("ff534601 9901234567 bb56212f08 c712fa23475c5edba70d132bd471f5a5")

    @Test func encryptsTheWorkedExampleAndBack() throws {
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: Self.baseKey, keyID: 0x123, suite: .aes128GCMSHA256), counter: 0x4567)
        var out: [UInt8] = []
        let header = try Array("hello".utf8).withUnsafeBytes { payload in
            try Array("chat".utf8).withUnsafeBytes { try E2EEData.encrypt(payload, topic: $0, with: encryptor, appendingTo: &out) }
        }
        #expect(header == SFrameHeader(keyID: 0x123, counter: 0x4567))
        #expect(out == Self.example)
        #expect(out.withUnsafeBytes { E2EEData.isEncrypted($0) })

        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Self.baseKey, keyID: 0x123)
        var plain: [UInt8] = []
        try Self.example.withUnsafeBytes { encrypted in
            try Array("chat".utf8).withUnsafeBytes { _ = try E2EEData.decrypt(encrypted, topic: $0, with: decryptor, appendingTo: &plain) }
        }
        #expect(plain == Array("hello".utf8))
    }

    @Test(arguments: ["", "chat2", "Chat"])
    func anotherTopicFailsAndAppendsNothing(topic: String) {
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Self.baseKey, keyID: 0x123)
        var plain: [UInt8] = [7]
        #expect(throws: SFrameError.authenticationFailed) {
            try Self.example.withUnsafeBytes { encrypted in
                try Array(topic.utf8).withUnsafeBytes { _ = try E2EEData.decrypt(encrypted, topic: $0, with: decryptor, appendingTo: &plain) }
            }
        }
        #expect(plain == [7])
    }

    /// (byte index, new value): the marker, its version, the ciphertext, the tag.
    static let changes: [(Int, UInt8)] = [(0, 0xfe), (3, 0x02), (9, 0xbb ^ 1), (29, 0xa4)]

    @Test(arguments: changes)
    func anyChangedByteFails(index: Int, value: UInt8) {
        var changed = Self.example
        changed[index] = value
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Self.baseKey, keyID: 0x123)
        var plain: [UInt8] = []
        #expect(throws: (any Error).self) {
            try changed.withUnsafeBytes { encrypted in
                try [UInt8]("chat".utf8).withUnsafeBytes { _ = try E2EEData.decrypt(encrypted, topic: $0, with: decryptor, appendingTo: &plain) }
            }
        }
        #expect(plain.isEmpty)
    }

    static let plainPayloads: [[UInt8]] = [[], [0xff, 0x53, 0x46], [0xff, 0x53, 0x46, 0x02, 0x00], Array("hello".utf8)]

    @Test(arguments: plainPayloads)
    func payloadsWithoutTheMarkerAreNotEncrypted(payload: [UInt8]) {
        #expect(!payload.withUnsafeBytes { E2EEData.isEncrypted($0) })
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        var plain: [UInt8] = []
        #expect(throws: SFrameError.malformedFrame) {
            try payload.withUnsafeBytes { encrypted in
                try [UInt8]().withUnsafeBytes { _ = try E2EEData.decrypt(encrypted, topic: $0, with: decryptor, appendingTo: &plain) }
            }
        }
    }

    @Test func aMediaFrameIsNotADataMessage() throws {
        // An Opus frame whose TOC byte is 0xFF, under the same key: its metadata (the TOC byte)
        // is not the data message's (marker ‖ topic), so it does not authenticate as one.
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: Self.baseKey, keyID: 0x123, suite: .aes128GCMSHA256))
        var frame: [UInt8] = []
        try ([0xff] + Array("SF\u{1}hello".utf8)).withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .opus, with: encryptor, appendingTo: &frame) }
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Self.baseKey, keyID: 0x123)
        var plain: [UInt8] = []
        #expect(throws: (any Error).self) {
            try ([UInt8](E2EEData.marker) + frame.dropFirst()).withUnsafeBytes { encrypted in
                try [UInt8]().withUnsafeBytes { _ = try E2EEData.decrypt(encrypted, topic: $0, with: decryptor, appendingTo: &plain) }
            }
        }
    }
}
