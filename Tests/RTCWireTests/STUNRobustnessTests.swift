import Testing
import RTCWire
import TestRandom

/// Hostile input: every fault must throw a named error, never crash.
@Suite struct STUNRobustnessTests {
    @Test func everyTruncationOfTheSampleThrows() {
        for length in 0..<RFC5769.request.count {
            #expect(throws: STUNError.self) { try STUNMessage(bytes: Array(RFC5769.request.prefix(length))) }
        }
    }

    @Test func badCookieThrows() {
        var bytes = RFC5769.request
        bytes[4] = 0x22
        #expect(throws: STUNError.badMagicCookie) { try STUNMessage(bytes: bytes) }
    }

    @Test func firstTwoBitsSetIsNotSTUN() {
        var bytes = RFC5769.request
        bytes[0] = 0x80
        #expect(throws: STUNError.notSTUN) { try STUNMessage(bytes: bytes) }
    }

    @Test func attributeLengthPastTheMessageThrows() {
        // Header length 8: one attribute header claiming 0xFFFF bytes, then 4 bytes.
        let bytes: [UInt8] = [0x00, 0x01, 0x00, 0x08, 0x21, 0x12, 0xa4, 0x42] + [UInt8](repeating: 1, count: 12)
            + [0x00, 0x06, 0xff, 0xff] + [0, 0, 0, 0]
        #expect(throws: STUNError.attributeOverrun(type: 0x0006)) { try STUNMessage(bytes: bytes) }
    }

    @Test func headerLengthLargerThanDatagramThrows() {
        var bytes = RFC5769.request
        bytes[3] = 0x5c // 92 instead of 88
        #expect(throws: STUNError.truncated) { try STUNMessage(bytes: bytes) }
    }

    @Test func lengthNotMultipleOfFourThrows() {
        var bytes = RFC5769.request
        bytes[3] = 0x57
        #expect(throws: STUNError.badLength) { try STUNMessage(bytes: bytes) }
    }

    @Test func attributeAfterMessageIntegrityThrows() {
        // A PRIORITY after MESSAGE-INTEGRITY (RFC 8489 §14.5: only FINGERPRINT may follow).
        var message = STUNMessage(type: .bindingRequest, transactionID: RFC5769.transactionID, attributes: [.username("a:b")])
        var bytes = message.encoded(integrityKey: Array("k".utf8), fingerprint: false)
        bytes += [0x00, 0x24, 0x00, 0x04, 0, 0, 0, 1]
        let length = bytes.count - 20
        bytes[2] = UInt8(length >> 8); bytes[3] = UInt8(length & 0xff)
        #expect(throws: STUNError.attributeAfterIntegrity(type: 0x0024)) { try STUNMessage(bytes: bytes) }
        message.attributes = []
    }

    @Test func attributeAfterFingerprintThrows() {
        let message = STUNMessage(type: .bindingRequest, transactionID: RFC5769.transactionID)
        var bytes = message.encoded(fingerprint: true)
        bytes += [0x00, 0x24, 0x00, 0x04, 0, 0, 0, 1]
        let length = bytes.count - 20
        bytes[2] = UInt8(length >> 8); bytes[3] = UInt8(length & 0xff)
        #expect(throws: STUNError.self) { try STUNMessage(bytes: bytes) }
    }

    @Test func malformedXorMappedAddressThrowsOnAccess() throws {
        let message = STUNMessage(type: .bindingSuccess, transactionID: RFC5769.transactionID,
                                  attributes: [STUNAttribute(type: STUNAttribute.xorMappedAddress, value: [0, 3, 0, 0, 1, 2, 3, 4])])
        let parsed = try STUNMessage(bytes: message.encoded())
        #expect(throws: STUNError.badAttributeValue(type: STUNAttribute.xorMappedAddress)) { try parsed.xorMappedAddress() }
    }

    @Test(arguments: [1, 2, 3, 4])
    func seededRandomInputNeverCrashes(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        for _ in 0..<3000 {
            let count = Int(rng.next() % 160)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if count >= 20, rng.next() % 2 == 0 {
                // Make it look like STUN so the attribute loop is exercised.
                bytes[0] = 0; bytes[1] = 1
                bytes[4] = 0x21; bytes[5] = 0x12; bytes[6] = 0xa4; bytes[7] = 0x42
                let length = (count - 20) & ~3
                bytes = Array(bytes.prefix(20 + length))
                bytes[2] = UInt8(length >> 8); bytes[3] = UInt8(length & 0xff)
            }
            if let message = try? STUNMessage(bytes: bytes) {
                _ = try? message.xorMappedAddress()
                _ = message.errorCode
                _ = try? message.verifyIntegrity(in: bytes, key: [1, 2, 3])
            }
        }
    }

    @Test func mutatedSamplesNeverCrash() {
        var rng = SeededRandom(seed: 99)
        for _ in 0..<5000 {
            var bytes = RFC5769.request
            for _ in 0..<(1 + rng.next() % 4) {
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            if let message = try? STUNMessage(bytes: bytes) {
                _ = try? message.verifyIntegrity(in: bytes, key: RFC5769.password)
            }
        }
    }
}

