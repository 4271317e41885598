import Testing
import RTCWire

struct RTPPacketCacheTests {
    static func packet(_ seq: UInt16, size: Int = 20) -> [UInt8] {
        (0 ..< size).map { UInt8(truncatingIfNeeded: Int(seq) &+ $0) }
    }

    @Test func answersWithTheStoredBytesAndRefusesOverwrittenSlots() {
        let cache = RTPPacketCache(capacity: 100, slotSize: 64)
        #expect(cache.capacity == 128)
        for seq in UInt16(0) ..< 200 {
            Self.packet(seq).withUnsafeBytes { cache.store($0, sequenceNumber: seq, now: 0) }
        }
        // 199 is in; 50 was overwritten by 178 (same slot).
        #expect(cache.packet(sequenceNumber: 199, now: 0).map(Array.init) == Self.packet(199))
        #expect(cache.packet(sequenceNumber: 50, now: 0) == nil)
        #expect(cache.packet(sequenceNumber: 178, now: 0).map(Array.init) == Self.packet(178))
        #expect(cache.hitCount == 2 && cache.missCount == 1)
    }

    @Test func keepsItsMappingAcrossTheSequenceWrap() {
        let cache = RTPPacketCache(capacity: 16, slotSize: 64)
        for seq: UInt16 in [65534, 65535, 0, 1] {
            Self.packet(seq, size: 30).withUnsafeBytes { cache.store($0, sequenceNumber: seq, now: 5) }
        }
        for seq: UInt16 in [65534, 65535, 0, 1] {
            #expect(cache.packet(sequenceNumber: seq, now: 5).map(Array.init) == Self.packet(seq, size: 30))
        }
    }

    @Test func oldAndOversizedPacketsAreNotAnswered() {
        let cache = RTPPacketCache(capacity: 8, slotSize: 32)
        Self.packet(1, size: 33).withUnsafeBytes { cache.store($0, sequenceNumber: 1, now: 0) }
        #expect(cache.packet(sequenceNumber: 1, now: 0) == nil)
        Self.packet(2).withUnsafeBytes { cache.store($0, sequenceNumber: 2, now: 0) }
        #expect(cache.packet(sequenceNumber: 2, now: 1_000_000, maxAge: 1_000_000) != nil)
        #expect(cache.packet(sequenceNumber: 2, now: 1_000_001, maxAge: 1_000_000) == nil)
        cache.clear()
        #expect(cache.packet(sequenceNumber: 2, now: 0) == nil)
    }

    @Test func aPacketWrittenInItsSlotIsReadBackAndAFailedWriteLeavesTheSlotEmpty() {
        let cache = RTPPacketCache(capacity: 4, slotSize: 16)
        let written = cache.store(sequenceNumber: 7) { slot in
            #expect(slot.count == 16)
            for i in 0..<5 { slot[i] = UInt8(i + 1) }
            return 5
        }
        #expect(written == 5 && cache.packet(sequenceNumber: 7).map(Array.init) == [1, 2, 3, 4, 5])
        // Without maxAge the age is not checked (the SDK sends from the cache at once).
        #expect(cache.packet(sequenceNumber: 7, now: 10_000_000_000) != nil)
        #expect(cache.store(sequenceNumber: 11) { _ in nil } == nil)
        #expect(cache.packet(sequenceNumber: 11) == nil && cache.packet(sequenceNumber: 7) == nil)
        #expect(cache.store(sequenceNumber: 15) { _ in 17 } == nil)
        #expect(cache.storedCount == 1)
    }
}
