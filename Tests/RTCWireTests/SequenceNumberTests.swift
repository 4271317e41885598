import Testing
@testable import RTCWire

/// Wrap-aware comparison and unwrapping (RFC 3550 §A.1).
@Suite struct SequenceNumberTests {
    @Test(arguments: [
        (UInt16(1), UInt16(0), true), (0, 1, false), (0, 65535, true), (65535, 0, false),
        (0x8000, 0, true), (0, 0x8000, false), (5, 5, false), (0x7FFF, 0, true),
    ])
    func isNewerAcrossTheWrap(a: UInt16, b: UInt16, newer: Bool) {
        #expect(SequenceNumber.isNewer(a, than: b) == newer)
    }

    /// Exactly 2^15 apart neither way is shorter: the larger raw value is the newer one, so exactly
    /// one of the two is newer and `distance` agrees with `isNewer` in sign (the SDK's media
    /// buffers once used a copy that called neither newer there).
    @Test(arguments: [UInt16(0), 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 12_345])
    func exactlyHalfTheSpaceApartOneIsNewer(a: UInt16) {
        let b = a &+ 0x8000
        #expect(SequenceNumber.isNewer(a, than: b) != SequenceNumber.isNewer(b, than: a))
        #expect(SequenceNumber.isNewer(max(a, b), than: min(a, b)))
        #expect(SequenceNumber.distance(from: min(a, b), to: max(a, b)) == 32_768)
        #expect(SequenceNumber.distance(from: max(a, b), to: min(a, b)) == -32_768)
        #expect(SequenceNumber.newest(a, b) == max(a, b) && SequenceNumber.newest(b, a) == max(a, b))
    }

    @Test func distanceAndIsNewerAgreeOnEveryPairAroundTheBoundaries() {
        let samples: [UInt16] = [0, 1, 2, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0x8002, 0xFFFE, 0xFFFF]
        for a in samples {
            for b in samples {
                let d = SequenceNumber.distance(from: a, to: b)
                #expect(d == -SequenceNumber.distance(from: b, to: a), "\(a) \(b)")
                #expect((d > 0) == SequenceNumber.isNewer(b, than: a), "\(a) \(b)")
                #expect(SequenceNumber.advanced(a, by: d) == b, "\(a) \(b)")
            }
        }
        #expect(SequenceNumber.distance(from: 0, to: 0x7FFF) == 32_767 && SequenceNumber.distance(from: 0, to: 0x8001) == -32_767)
    }

    @Test func distanceIsSignedShortestWay() {
        #expect(SequenceNumber.distance(from: 65534, to: 2) == 4)
        #expect(SequenceNumber.distance(from: 2, to: 65534) == -4)
        #expect(SequenceNumber.advanced(65535, by: 2) == 1)
        #expect(SequenceNumber.newest(65535, 3) == 3)
        #expect(SequenceNumber.sorted([65534, 1, 65535, 0]) == [65534, 65535, 0, 1])
    }

    @Test func unwrapperCountsAcrossWrapsAndReordering() {
        var unwrapper = SequenceNumberUnwrapper()
        let inputs: [UInt16] = [65533, 65535, 65534, 0, 2, 1, 32768, 40000, 100]
        let expected: [Int64] = [65533, 65535, 65534, 65536, 65538, 65537, 98304, 105536, 131172]
        #expect(inputs.map { unwrapper.unwrap($0) } == expected)
    }

    @Test func timestampUnwrapperAndComparison() {
        var unwrapper = RTPTimestampUnwrapper()
        #expect(unwrapper.unwrap(0xFFFF_FF00) == 0xFFFF_FF00)
        #expect(unwrapper.unwrap(0x0000_0100) == 0x1_0000_0100)
        #expect(unwrapper.peek(0xFFFF_FF00) == 0xFFFF_FF00)
        #expect(RTPTimestamp.isNewer(0x10, than: 0xFFFF_FFF0))
        #expect(RTPTimestamp.distance(from: 0xFFFF_FFF0, to: 0x10) == 0x20)
        #expect(RTPTimestamp.ticks(milliseconds: 20, clockRate: 48_000) == 960)
        #expect(RTPTimestamp.seconds(ticks: 90_000, clockRate: 90_000) == 1)
    }
}
