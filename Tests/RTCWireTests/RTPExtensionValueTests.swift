import Testing
@testable import RTCWire

/// Known header extension values: RFC 6464, abs-send-time, abs-capture-time, transport-wide sequence, SDES ids.
@Suite struct RTPExtensionValueTests {
    @Test func audioLevelPacksVoiceBitAndLevel() throws {
        // RFC 6464 §3: V=1, level=0x21 (33 -dBov) → 0xA1.
        #expect(AudioLevelExtension(voiceActivity: true, level: 33).serialize() == [0xA1])
        #expect(try AudioLevelExtension(parsing: [0x7F]) == AudioLevelExtension(voiceActivity: false, level: 127))
        #expect(throws: RTPError.invalidExtensionValue) { try AudioLevelExtension(parsing: []) }
    }

    @Test func absSendTimeIsSixPointEighteenFixedPoint() throws {
        // 1.5 s = 1.5 * 2^18 = 0x060000.
        #expect(AbsSendTimeExtension(seconds: 1.5).rawValue == 0x06_0000)
        #expect(AbsSendTimeExtension(seconds: 65.5).rawValue == 0x06_0000)  // wraps every 64 s
        #expect(AbsSendTimeExtension(rawValue: 0x06_0000).seconds == 1.5)
        // NTP 32.32 time of 1.5 s: 0x00000001_80000000 → middle 24 bits.
        #expect(AbsSendTimeExtension(ntpTimestamp: 0x0000_0001_8000_0000).rawValue == 0x06_0000)
        #expect(AbsSendTimeExtension(rawValue: 0x12_3456).serialize() == [0x12, 0x34, 0x56])
        #expect(throws: RTPError.invalidExtensionValue) { try AbsSendTimeExtension(parsing: [1, 2]) }
    }

    @Test func absCaptureTimeIsNTPWithOptionalOffset() throws {
        // Short form: 8 bytes of NTP 32.32 time (2 s + 0.5 s = 0x00000002_80000000).
        let short = AbsCaptureTimeExtension(captureTime: 0x0000_0002_8000_0000)
        #expect(short.serialize() == [0, 0, 0, 2, 0x80, 0, 0, 0])
        #expect(try AbsCaptureTimeExtension(parsing: short.serialize()) == short)
        // Long form: the clock offset follows, signed 32.32 (−1.0 s).
        let long = AbsCaptureTimeExtension(captureTime: 1, clockOffset: -0x1_0000_0000)
        #expect(long.serialize() == [0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
        #expect(try AbsCaptureTimeExtension(parsing: long.serialize()) == long)
        #expect(throws: RTPError.invalidExtensionValue) { try AbsCaptureTimeExtension(parsing: [UInt8](repeating: 0, count: 9)) }
    }

    @Test func transportSequenceNumberIsBigEndian16Bit() throws {
        #expect(try TransportSequenceNumberExtension(parsing: [0x01, 0x02]).sequenceNumber == 258)
        #expect(TransportSequenceNumberExtension(sequenceNumber: 0xABCD).serialize() == [0xAB, 0xCD])
        #expect(throws: RTPError.invalidExtensionValue) { try TransportSequenceNumberExtension(parsing: [1]) }
    }

    @Test func streamIdentifierReadsTextAndComparesRawBytes() throws {
        #expect(try StreamIdentifierExtension(parsing: Array("hi".utf8)).value == "hi")
        #expect(try StreamIdentifierExtension(parsing: [0x30, 0x00, 0x00]).value == "0")  // zero padding dropped
        #expect(StreamIdentifierExtension("q").serialize() == [0x71])
        #expect(throws: RTPError.invalidExtensionValue) { try StreamIdentifierExtension(parsing: [0x00]) }
        #expect(throws: RTPError.invalidExtensionValue) { try StreamIdentifierExtension(parsing: [0xFF, 0xFE]) }
        let raw: [UInt8] = [0x68, 0x69, 0x00]
        raw.withUnsafeBytes { bytes in
            #expect(StreamIdentifierExtension.matches(bytes, "hi"))
            #expect(!StreamIdentifierExtension.matches(bytes, "h"))
            #expect(!StreamIdentifierExtension.matches(bytes, "hid"))
        }
    }
}
