import Testing
@testable import RTCMedia

@Suite struct AudioPlayoutBufferTests {
    @Test func waitsForTargetDepthThenPlaysInOrder() {
        var buffer = AudioPlayoutBuffer()
        let value1 = buffer.insert(payload: [2], sequenceNumber: 65_535)
        #expect(value1)
        let value2 = buffer.next()
        #expect(value2 == .empty)                          // 1 of 3 buffered
        let value3 = buffer.insert(payload: [1], sequenceNumber: 65_534)
        #expect(value3) // earlier packet before start: new start
        let value4 = buffer.insert(payload: [3], sequenceNumber: 0)
        #expect(value4)
        let value5 = buffer.next()
        #expect(value5 == .packet([1]))
        let value6 = buffer.next()
        #expect(value6 == .packet([2]))
        let value7 = buffer.insert(payload: [4], sequenceNumber: 1)
        #expect(value7)
        let value8 = buffer.next()
        #expect(value8 == .packet([3]))
        let value9 = buffer.next()
        #expect(value9 == .packet([4]))
        #expect(buffer.statistics.played == 4)
    }

    @Test func missingPacketBecomesLossWithTheNextForFEC() {
        var buffer = AudioPlayoutBuffer()
        for sequence: UInt16 in [10, 12, 13, 14] { buffer.insert(payload: [UInt8(sequence)], sequenceNumber: sequence) }
        let value10 = buffer.next()
        #expect(value10 == .packet([10]))
        let value11 = buffer.next()
        #expect(value11 == .lost(next: [12]))
        let value12 = buffer.next()
        #expect(value12 == .packet([12]))
        // 11 arrives after its turn: dropped.
        let value13 = buffer.insert(payload: [11], sequenceNumber: 11)
        #expect(!value13)
        let value14 = buffer.insert(payload: [13], sequenceNumber: 13)
        #expect(!value14)   // duplicate
        #expect(buffer.statistics.late == 1 && buffer.statistics.duplicates == 1 && buffer.statistics.concealed == 1)
    }

    @Test func burstBeyondMaxDepthIsSkippedToTarget() {
        var buffer = AudioPlayoutBuffer()
        for sequence in 0..<20 { buffer.insert(payload: [UInt8(sequence)], sequenceNumber: UInt16(sequence)) }
        let value15 = buffer.next()
        #expect(value15 == .packet([5]))      // 20 held > 15: skip 0…4
        #expect(buffer.statistics.skipped == 5)
    }

    @Test func decodesPacketsFECAndConcealment() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        var tone = SineToneGenerator(frequency: 440)
        var buffer = AudioPlayoutBuffer()
        let value16 = try buffer.nextAudio(decoder: decoder)
        #expect(value16.frameCount == 960)   // silence before start
        for sequence in 0..<8 {
            let packet = try encoder.encode(tone.next(frameCount: 960))
            if sequence != 4 { buffer.insert(payload: packet, sequenceNumber: UInt16(sequence)) }
        }
        var levels: [Double] = []
        for _ in 0..<8 { levels.append(FrequencyEstimator.rms(try buffer.nextAudio(decoder: decoder).floatSamples)) }
        #expect(buffer.statistics.played == 7 && buffer.statistics.concealed == 1)
        #expect(levels.dropFirst(2).allSatisfy { $0 > 0.1 }, "\(levels)")   // FEC-rebuilt frame 4 included
    }
}
