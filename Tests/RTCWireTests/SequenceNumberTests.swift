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
