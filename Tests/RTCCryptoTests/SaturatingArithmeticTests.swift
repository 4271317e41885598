import RTCCrypto
import Testing

@Suite struct SaturatingArithmeticTests {
    @Test func addingSticksAtTheBounds() {
        #expect(Int64.max.addingSaturating(1) == .max)
        #expect(Int64.min.addingSaturating(-1) == .min)
        #expect(Int64(5).addingSaturating(-7) == -2)
        #expect(UInt16.max.addingSaturating(1) == .max)
    }

    @Test func subtractingSticksAtTheBounds() {
        #expect(Int64.min.subtractingSaturating(1) == .min)
        #expect(Int64(0).subtractingSaturating(.min) == .max)
        #expect(Int64(1_800_000_000).subtractingSaturating(.min) == .max)
        #expect(Int64(-1_800_000_000).subtractingSaturating(.max) == .min)
        #expect(UInt32(3).subtractingSaturating(5) == 0)
        #expect(Int64(7).subtractingSaturating(9) == -2)
    }

    @Test func multiplyingSticksAtTheBoundOfTheSign() {
        #expect(Int64(10_000_000_000_000_000).multipliedSaturating(by: 1000) == .max)
        #expect(Int64(-10_000_000_000_000_000).multipliedSaturating(by: 1000) == .min)
        #expect(Int64.min.multipliedSaturating(by: -1) == .max)
        #expect(Int64(-3).multipliedSaturating(by: 1000) == -3000)
        #expect(UInt8(20).multipliedSaturating(by: 20) == .max)
    }
}
