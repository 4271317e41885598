import RTCWire
import Testing
@testable import SRTCLoad

/// The send time a publisher stamps on each packet, read back by subscribers: in abs-capture-time
/// when the server forwards it, else in RTP padding.
struct SendTimeStampTests {
    static let time: UInt64 = 0xE9AA_BBCC_8000_0000

    @Test func aStampInPaddingIsReadFromTheLastNineBytes() throws {
        let stamp = (0..<8).map { UInt8(truncatingIfNeeded: Self.time >> (56 - 8 * $0)) }
        let packet = Self.padded(payload: [1, 2, 3], padding: stamp + [9])
        try packet.withUnsafeBytes { bytes in
            let view = try RTPPacketView(bytes)
            #expect(SendTimeStamp.read(view, absCaptureTimeID: 0) == Self.time)
            #expect(SendTimeStamp.read(view, absCaptureTimeID: 5) == Self.time)  // no such element: padding
        }
        // Other padding (a sender's own) is not a stamp.
        let padded = Self.padded(payload: [1], padding: [0, 0, 0, 4])
        try padded.withUnsafeBytes { bytes in
            let view = try RTPPacketView(bytes)
            #expect(SendTimeStamp.read(view, absCaptureTimeID: 0) == nil)
        }
    }

    /// A packet with `padding` after `payload` (the last byte its count) and P set (RFC 3550 §5.1).
    static func padded(payload: [UInt8], padding: [UInt8]) -> [UInt8] {
        var bytes = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, payload: payload + padding).serialize()
        bytes[0] |= 0x20
        return bytes
    }

    @Test func aStampInAbsCaptureTimeWinsOverPadding() throws {
        let packet = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3,
                               extensions: [RTPHeaderExtensionElement(id: 5, value: AbsCaptureTimeExtension(captureTime: Self.time).serialize())],
                               payload: [1]).serialize()
        try packet.withUnsafeBytes { bytes in
            let view = try RTPPacketView(bytes)
            #expect(SendTimeStamp.read(view, absCaptureTimeID: 5) == Self.time)
        }
    }

    @Test func ntpDifferencesBecomeMicroseconds() {
        let sent: UInt64 = 100 << 32
        #expect(SendTimeStamp.micros(from: sent, to: sent + (1 << 32) / 1000) == 999)  // 1 ms, truncated
        #expect(SendTimeStamp.micros(from: sent, to: sent + (3 << 31)) == 1_500_000)
        #expect(SendTimeStamp.micros(from: sent + (1 << 32), to: sent) == -1_000_000)
    }
}
