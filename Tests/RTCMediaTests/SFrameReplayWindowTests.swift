import Testing
import TestRandom
@testable import RTCMedia

/// The replay window of encrypted data messages (docs/e2ee.md, "Data messages").
@Suite struct SFrameReplayWindowTests {
    @Test func aCounterIsAcceptedOnce() {
        var window = SFrameReplayWindow()
        #expect(window.accept(5) == .fresh)
        #expect(window.accept(5) == .replayed)
        #expect(window.newest == 5)
    }

    /// Counters arriving out of order inside the window are accepted once each; the gaps that
    /// media frames leave in a sender's counters stay open for late messages.
    @Test func reorderingInsideTheWindowIsAccepted() {
        var window = SFrameReplayWindow()
        #expect([10, 400, 12, 11, 399, 401].map { window.accept($0) } == Array(repeating: .fresh, count: 6))
        #expect([10, 11, 12, 399, 400, 401].map { window.accept($0) } == Array(repeating: .replayed, count: 6))
        #expect(window.newest == 401)
    }

    /// 1023 below the newest is the oldest counter still told apart; 1024 below is too old.
    @Test func countersPastTheWindowAreTooOld() {
        var window = SFrameReplayWindow()
        #expect(window.accept(2_000) == .fresh)
        #expect(window.accept(2_000 - 1_023) == .fresh)
        #expect(window.accept(2_000 - 1_023) == .replayed)
        #expect(window.accept(2_000 - 1_024) == .tooOld)
        // A jump past the whole window forgets everything below it.
        #expect(window.accept(10_000) == .fresh)
        #expect(window.accept(10_000 - 1) == .fresh)
        #expect(window.accept(2_000) == .tooOld)
    }

    /// Slots reused as the window moves hold no stale bit: counter c + 1024 is new after c.
    @Test func movingTheWindowClearsReusedSlots() {
        var window = SFrameReplayWindow()
        #expect(window.accept(1) == .fresh)
        #expect(window.accept(3) == .fresh)
        #expect(window.accept(1 + 1_024) == .fresh)   // the slot of 1, cleared as the window moved
        #expect(window.accept(3 + 1_024 - 1_024) == .replayed)  // 3 is still inside (1025 − 3 < 1024)
        #expect(window.accept(3 + 1_024) == .fresh)
        #expect(window.accept(1_024) == .fresh)
    }

    /// 200 seeded runs of 50 counters against a plain set of the counters accepted.
    @Test func agreesWithASetOfAcceptedCounters() {
        var generator = SeededRandom(seed: 9605)
        for _ in 0..<200 {
            var window = SFrameReplayWindow()
            var accepted = Set<UInt64>(), newest: UInt64?
            for _ in 0..<50 {
                let counter = UInt64.random(in: 0..<3_000, using: &generator)
                let expected: SFrameReplayWindow.Verdict
                if let top = newest, counter <= top, top - counter >= 1_024 {
                    expected = .tooOld
                } else if accepted.contains(counter) {
                    expected = .replayed
                } else {
                    expected = .fresh
                }
                #expect(window.accept(counter) == expected, "counter \(counter) after \(accepted.sorted())")
                if expected == .fresh { accepted.insert(counter); newest = max(newest ?? counter, counter) }
            }
        }
    }
}
