import Testing
@testable import SRTCLoad

/// The pacer's rule of who is due when, driven by a clock of the test's own (µs).
struct LoadPacerScheduleTests {
    /// Steps `schedule` from `from` to `to` (inclusive) every `step` µs; returns (time, member) for
    /// every member due, in order.
    static func drive(_ schedule: inout LoadPacerSchedule<String>, starts: [String: Int64],
                      from: Int64, to: Int64, step: Int64 = 1_000) -> [(Int64, String)] {
        var due: [(Int64, String)] = []
        var now = from
        while now <= to {
            schedule.popDue(now: now, startTime: { starts[$0] }) { due.append((now, $0)) }
            now += step
        }
        return due
    }

    static func times(of member: String, in due: [(Int64, String)]) -> [Int64] {
        due.filter { $0.1 == member }.map(\.0)
    }

    @Test func eachMemberIsDueAtItsStartAndEveryFrameOfAnyOfItsStreams() {
        var schedule = LoadPacerSchedule<String>()
        _ = schedule.add("a", intervals: [20_000, 30_000])
        _ = schedule.add("b", intervals: [25_000])
        let due = Self.drive(&schedule, starts: ["a": 1_000_000, "b": 1_005_000], from: 1_000_000, to: 1_100_000)
        // a: 20 and 30 ms grids share 60 ms (one post for both); b joined 5 ms later.
        #expect(Self.times(of: "a", in: due) == [1_000_000, 1_020_000, 1_030_000, 1_040_000, 1_060_000, 1_080_000, 1_090_000, 1_100_000])
        #expect(Self.times(of: "b", in: due) == [1_005_000, 1_030_000, 1_055_000, 1_080_000])
        #expect(due.map(\.0) == due.map(\.0).sorted())
        #expect(schedule.nextDue() == 1_105_000)
    }

    @Test func aLateWakeUpIsDueOnceThenBackOnTheGrid() {
        var schedule = LoadPacerSchedule<String>()
        _ = schedule.add("a", intervals: [20_000])
        let starts: [String: Int64] = ["a": 1_000]
        var due: [Int64] = []
        for now: Int64 in [1_000, 66_000, 80_999, 81_000] {
            schedule.popDue(now: now, startTime: { starts[$0] }) { _ in due.append(now) }
            if now == 66_000 { #expect(schedule.nextDue() == 81_000) }
        }
        // Frames at 21, 41 and 61 ms were missed: one post at 66 ms (the sender catches up), none
        // until the next frame of the grid at 81 ms.
        #expect(due == [1_000, 66_000, 81_000])
    }

    @Test func aMemberWaitsUntilItStartsThenFollowsItsOwnStart() {
        var schedule = LoadPacerSchedule<String>()
        _ = schedule.add("a", intervals: [10_000])
        var starts: [String: Int64] = [:]
        #expect(Self.drive(&schedule, starts: starts, from: 0, to: 50_000).isEmpty)
        #expect(schedule.nextDue() == nil)
        starts["a"] = 53_000
        let due = Self.drive(&schedule, starts: starts, from: 55_000, to: 90_000)
        #expect(Self.times(of: "a", in: due) == [55_000, 63_000, 73_000, 83_000])
    }

    @Test func aRemovedMemberIsNeverDueAgainAndTheOthersKeepTheirTimes() {
        var schedule = LoadPacerSchedule<String>()
        let a = schedule.add("a", intervals: [10_000])
        _ = schedule.add("b", intervals: [15_000])
        let c = schedule.add("c", intervals: [10_000])
        let starts: [String: Int64] = ["a": 0, "b": 0]  // c never starts
        let before = Self.drive(&schedule, starts: starts, from: 0, to: 20_000)
        #expect(Self.times(of: "a", in: before) == [0, 10_000, 20_000])
        schedule.remove(a)
        schedule.remove(c)
        let after = Self.drive(&schedule, starts: starts.merging(["c": 0]) { $1 }, from: 21_000, to: 60_000)
        #expect(after.map(\.1) == ["b", "b", "b"])
        #expect(Self.times(of: "b", in: after) == [30_000, 45_000, 60_000])
        _ = schedule.add("d", intervals: [40_000])
        let added = Self.drive(&schedule, starts: ["b": 0, "d": 61_000], from: 61_000, to: 105_000)
        #expect(Self.times(of: "d", in: added) == [61_000, 101_000])
        #expect(Self.times(of: "b", in: added) == [75_000, 90_000, 105_000])
    }

    @Test func aMemberWithoutFramesIsLookedAtOnTheIdleBeat() {
        #expect(LoadPacerSchedule<String>.nextFrame(after: 5_000, start: 0, intervals: [0]) == 25_000)
        #expect(LoadPacerSchedule<String>.nextFrame(after: 5_000, start: 0, intervals: []) == 25_000)
    }
}
