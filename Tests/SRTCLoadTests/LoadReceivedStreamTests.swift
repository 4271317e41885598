import RTCWire
import SRTCProtocol
import Testing
@testable import SRTCLoad

/// The load subscriber's loss rules, on the one loss tracker: a gap is NACKed once when the packet
/// after it arrives, a packet that then arrives counts as recovered, and a number missing for over
/// a second is given up, which makes a video stream (not an audio one) ask for a key frame, at most
/// once a second.
struct LoadReceivedStreamTests {
    /// Feeds `sequences` (arriving at `now` µs) and returns what each asked to NACK.
    static func receive(_ stream: LoadReceivedStream, _ sequences: [UInt16], now: Int64) throws -> [[UInt16]] {
        try sequences.map { sequence in
            let bytes = RTPPacket(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: 5, payload: [1, 2, 3]).serialize()
            return try bytes.withUnsafeBytes { try stream.receive(RTPPacketView($0), now: now) }
        }
    }

    @Test func aGapIsNACKedOnceAndGivenUpAfterASecond() throws {
        let stream = LoadReceivedStream(mid: "1", kind: .video, ssrc: 5, absCaptureTimeID: 0, source: nil)
        #expect(try Self.receive(stream, [65534, 65535, 2], now: 0) == [[], [], [0, 1]])
        // Not asked again, however long it stays missing; 0 arrives and counts as recovered.
        #expect(try Self.receive(stream, [0, 5], now: 500_000) == [[], [3, 4]])
        #expect(!stream.expireMissing(now: 1_000_000))
        // 1 has been missing for over a second: given up, and the video stream asks for a key frame once.
        #expect(stream.expireMissing(now: 1_000_001))
        #expect(!stream.expireMissing(now: 1_000_002))
        // 3 and 4, given up within a second of that request, ask for none, now or later.
        #expect(!stream.expireMissing(now: 1_500_001))
        #expect(!stream.expireMissing(now: 2_600_000))
        let counts = stream.statistics(now: 2_600_000, requestTime: 0)
        #expect(counts.nacksSent == 2 && counts.nackedPackets == 4 && counts.recovered == 1 && counts.plisSent == 1)
    }

    @Test func anAudioStreamNeverAsksForAKeyFrame() throws {
        let stream = LoadReceivedStream(mid: "0", kind: .audio, ssrc: 5, absCaptureTimeID: 0, source: nil)
        #expect(try Self.receive(stream, [10, 12], now: 0) == [[], [11]])
        #expect(!stream.expireMissing(now: 2_000_000))
        #expect(stream.statistics(now: 2_000_000, requestTime: 0).plisSent == 0)
    }

    @Test func aGapLongerThanTheListIsNotNACKedButGivenUp() throws {
        let stream = LoadReceivedStream(mid: "1", kind: .video, ssrc: 5, absCaptureTimeID: 0, source: nil)
        #expect(try Self.receive(stream, [0, 300], now: 0) == [[], []])
        #expect(stream.expireMissing(now: 10))
    }
}
