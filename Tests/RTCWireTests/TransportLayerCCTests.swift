import Testing
@testable import RTCWire

/// Transport-wide CC feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
@Suite struct TransportLayerCCTests {
    /// The arrivals the fixture describes: 100 at 1025 ms, 101 at 1027 ms, 102 lost,
    /// 103 at 1283 ms, 104 at 1283.25 ms.
    static let fixtureArrivals = [
        TransportCCArrival(sequenceNumber: 100, arrivalTime: 1_025_000),
        TransportCCArrival(sequenceNumber: 101, arrivalTime: 1_027_000),
        TransportCCArrival(sequenceNumber: 103, arrivalTime: 1_283_000),
        TransportCCArrival(sequenceNumber: 104, arrivalTime: 1_283_250),
    ]

    @Test func parsesFixtureFieldByField() throws {
        let feedback = try TransportLayerCC(parsing: RTCPFixtures.transportCC)
        #expect(feedback.senderSSRC == 1 && feedback.mediaSSRC == 0x1122_3344)
        #expect(feedback.baseSequenceNumber == 100 && feedback.packetStatusCount == 5)
        #expect(feedback.referenceTime == 16 && feedback.feedbackPacketCount == 3)
        #expect(feedback.chunks == [.twoBitVector([
            .receivedSmallDelta, .receivedSmallDelta, .notReceived, .receivedLargeDelta, .receivedSmallDelta,
            .notReceived, .notReceived,
        ])])
        #expect(feedback.receiveDeltas == [4, 8, 1024, 1])
        #expect(feedback.packetResults.map(\.arrivalTime) == [1_025_000, 1_027_000, nil, 1_283_000, 1_283_250])
        #expect(feedback.packetResults.map(\.sequenceNumber) == [100, 101, 102, 103, 104])
    }

    @Test func builderReproducesTheFixture() throws {
        let built = try TransportLayerCC(
            senderSSRC: 1, mediaSSRC: 0x1122_3344, feedbackPacketCount: 3,
            arrivals: Self.fixtureArrivals.reversed())
        #expect(built.serialize() == RTCPFixtures.transportCC)
        #expect(try RTCPPacket(parsing: RTCPFixtures.transportCC).serialize() == RTCPFixtures.transportCC)
    }

    @Test func longRunsBecomeRunLengthChunks() throws {
        let arrivals = (0 ..< 20).map { TransportCCArrival(sequenceNumber: UInt16((65530 + $0) & 0xFFFF), arrivalTime: Int64($0) * 1000) }
        let built = try TransportLayerCC(senderSSRC: 9, mediaSSRC: 8, feedbackPacketCount: 0, arrivals: arrivals)
        #expect(built.baseSequenceNumber == 65530)
        #expect(built.chunks == [.runLength(.receivedSmallDelta, count: 20)])
        let bytes = built.serialize()
        #expect(Array(bytes[20 ..< 22]) == [0x20, 0x14])  // T=0 S=01 run length=20
        #expect(try TransportLayerCC(parsing: bytes).packetResults.map(\.arrivalTime) == arrivals.map(\.arrivalTime))
    }

    @Test func mixedSmallAndLostUseOneBitVectors() throws {
        // 1 received, 1 lost, alternating 8 times = 16 statuses, last received.
        let arrivals = stride(from: 0, to: 16, by: 2).map { TransportCCArrival(sequenceNumber: UInt16($0), arrivalTime: Int64($0) * 500) }
        let built = try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, arrivals: arrivals)
        #expect(built.packetStatusCount == 15)
        // 14 statuses 1,0,1,0,… in a one-bit vector: 1 0 | 10101010101010 = 0xAAAA; then a run of one received.
        #expect(built.chunks.map(\.statusCount) == [14, 1])
        let bytes = built.serialize()
        #expect(Array(bytes[20 ..< 24]) == [0xAA, 0xAA, 0x20, 0x01])
        #expect(try TransportLayerCC(parsing: bytes) == built)
    }

    @Test func negativeDeltaUsesLargeSymbol() throws {
        let arrivals = [
            TransportCCArrival(sequenceNumber: 10, arrivalTime: 100_000),
            TransportCCArrival(sequenceNumber: 11, arrivalTime: 99_000),
        ]
        let built = try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, arrivals: arrivals)
        #expect(built.statuses == [.receivedSmallDelta, .receivedLargeDelta])
        #expect(built.receiveDeltas == [144, -4])  // 100 ms - 64 ms = 36 ms = 144 ticks; then -1 ms
        #expect(try TransportLayerCC(parsing: built.serialize()).packetResults.map(\.arrivalTime) == [100_000, 99_000])
    }

    @Test func builderRejectsDeltasBeyondSixteenBits() {
        let arrivals = [
            TransportCCArrival(sequenceNumber: 1, arrivalTime: 0),
            TransportCCArrival(sequenceNumber: 2, arrivalTime: 10_000_000),
        ]
        #expect(throws: RTCPError.transportCCDeltaOutOfRange) {
            try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, arrivals: arrivals)
        }
    }

    @Test func builderRejectsMoreThan65535Packets() {
        // 32769 is 32767 behind 0 and 32768 (exactly half the space ahead) is newer than 0: 65536 packets.
        let arrivals = [0, 32768, 32769].map { TransportCCArrival(sequenceNumber: UInt16($0), arrivalTime: 0) }
        #expect(throws: RTCPError.transportCCTooManyPackets) {
            try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, arrivals: arrivals)
        }
    }

    /// Header for a feedback with `count` statuses and the given chunk words, no deltas.
    static func feedback(count: UInt16, chunks: [UInt16], deltas: [UInt8] = []) -> [UInt8] {
        var body: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, UInt8(count >> 8), UInt8(count & 0xFF), 0, 0, 0, 0]
        for chunk in chunks { body += [UInt8(chunk >> 8), UInt8(chunk & 0xFF)] }
        body += deltas
        while body.count % 4 != 0 { body.append(0) }
        let words = UInt16(body.count / 4)
        return [0x8F, 0xCD, UInt8(words >> 8), UInt8(words & 0xFF)] + body  // V=2 FMT=15 | PT=205 | length
    }

    @Test func sixtyFiveThousandLostPacketsInNineChunksParse() throws {
        // 9 run-length chunks of "not received" × 8191 (T=0 S=00 run=8191 → 0x1FFF) cover 65 535 statuses.
        let bytes = Self.feedback(count: 65535, chunks: Array(repeating: 0x1FFF, count: 9))
        let feedback = try TransportLayerCC(parsing: bytes)
        #expect(feedback.receiveDeltas.isEmpty)
        #expect(feedback.statuses.count == 65535)
        #expect(try TransportLayerCC(parsing: feedback.serialize()) == feedback)
    }

    @Test func claimedReceivedPacketsNeedTheirDeltaBytes() {
        // One run of 8191 "received, small delta" (0x3FFF) with two delta bytes present.
        let bytes = Self.feedback(count: 8191, chunks: [0x3FFF], deltas: [1, 2])
        #expect(throws: RTCPError.transportCCDeltaOverrun) { try TransportLayerCC(parsing: bytes) }
    }
}
