import Testing
@testable import SFU
import TestRandom

/// `{input, expected, sync, drop}` tables in the style of mediasoup's SeqManager tests.
struct SeqManagerTests {
    struct Step: CustomStringConvertible {
        var input: UInt16
        /// Output expected; nil when the input must be refused (or is dropped).
        var expected: UInt16?
        var sync = false
        var drop = false

        var description: String { "in \(input) → \(expected.map(String.init) ?? "-")\(sync ? " sync" : "")\(drop ? " drop" : "")" }
    }

    static func out(_ input: UInt16, _ expected: UInt16?) -> Step { Step(input: input, expected: expected) }
    static func drop(_ input: UInt16) -> Step { Step(input: input, expected: nil, drop: true) }
    static func sync(_ input: UInt16, _ expected: UInt16?) -> Step { Step(input: input, expected: expected, sync: true) }

    static func run(_ steps: [Step], initial: UInt16) {
        var manager = SeqManager(initialOutput: initial)
        for step in steps {
            if step.drop {
                manager.drop(step.input)
                continue
            }
            if step.sync { manager.sync(step.input) }
            let output = manager.input(step.input)
            #expect(output == step.expected, "\(step)")
        }
    }

    @Test func inOrderInputsCountFromTheInitialOutput() {
        Self.run([Self.out(0, 1000), Self.out(1, 1001), Self.out(2, 1002), Self.out(3, 1003)], initial: 1000)
    }

    @Test func droppedInputsLeaveNoGap() {
        Self.run([Self.out(0, 1000), Self.out(1, 1001), Self.drop(2), Self.out(3, 1002), Self.drop(4), Self.drop(5),
                  Self.out(6, 1003)], initial: 1000)
    }

    @Test func upstreamLossKeepsItsGapSoTheSubscriberCanNack() {
        Self.run([Self.out(0, 1000), Self.out(3, 1003), Self.out(1, 1001), Self.out(2, 1002), Self.out(4, 1004)],
                 initial: 1000)
    }

    @Test func outputWrapsAt65535() {
        Self.run([Self.out(10, 65534), Self.out(11, 65535), Self.out(12, 0), Self.out(13, 1)], initial: 65534)
    }

    @Test func inputWrapsAt65535WithADropOnTheWrap() {
        Self.run([Self.out(65533, 100), Self.out(65534, 101), Self.drop(65535), Self.out(0, 102), Self.out(1, 103)],
                 initial: 100)
    }

    @Test func latePacketGetsTheNumberItWasDueBeforeALaterDrop() {
        // 2 is late, 3 dropped: 2 keeps 1002, 4 takes 1003.
        Self.run([Self.out(0, 1000), Self.out(1, 1001), Self.drop(3), Self.out(4, 1003), Self.out(2, 1002)],
                 initial: 1000)
    }

    @Test func duplicatesRepeatTheirNumber() {
        Self.run([Self.out(0, 1000), Self.out(1, 1001), Self.out(1, 1001), Self.out(2, 1002)], initial: 1000)
    }

    @Test func syncContinuesANewStreamAfterTheLastNumberSent() {
        Self.run([Self.out(0, 1000), Self.out(1, 1001), Self.out(2, 1002),
                  Self.sync(5000, 1003), Self.out(5001, 1004), Self.out(4999, nil), Self.out(5002, 1005)],
                 initial: 1000)
    }

    @Test func syncAfterDropsAndAcrossBothWraps() {
        Self.run([Self.out(65534, 65533), Self.drop(65535), Self.out(0, 65534),
                  Self.sync(40000, 65535), Self.out(40001, 0), Self.drop(40002), Self.out(40003, 1),
                  Self.sync(3, 2), Self.out(4, 3)],
                 initial: 65533)
    }

    @Test func olderInputThanTheFirstIsRefused() {
        Self.run([Self.out(500, 7), Self.out(499, nil), Self.out(501, 8)], initial: 7)
    }

    @Test func randomDropsAlwaysGiveContiguousOutput() {
        var random = SeededRandom(seed: 42)
        var manager = SeqManager(initialOutput: 65000)
        var input: UInt16 = 60000
        var expected: UInt16 = 65000
        for _ in 0 ..< 20_000 {
            if random.next() % 4 == 0 {
                manager.drop(input)
            } else {
                let output = manager.input(input)
                #expect(output == expected)
                expected &+= 1
            }
            input &+= 1
        }
    }
}

extension SeqManagerTests {
    @Test func insertedNumbersFollowTheLastSentAndShiftWhatComesAfter() {
        var manager = SeqManager(initialOutput: 1000)
        #expect(manager.insert() == nil)  // nothing sent yet
        #expect(manager.input(0) == 1000)
        #expect(manager.input(2) == 1002)  // 1 lost upstream: its gap stays
        #expect(manager.insert() == 1003)
        #expect(manager.insert() == 1004)
        #expect(manager.input(3) == 1005)
        // The late packet gets the number it would have had, not one of the inserted ones.
        #expect(manager.input(1) == 1001)
        manager.drop(4)
        #expect(manager.input(5) == 1006)
        #expect(manager.insert() == 1007)
        #expect(manager.input(6) == 1008)
    }
}
