import RTCNet

/// Which of a load test's publishers are due to send frames, and when: `LoadPacer`'s bookkeeping,
/// apart from its thread so tests drive it with their own clock.
///
/// Schedules are absolute from a member's start: it is due whenever any of its streams has a
/// frame due. After a late wake-up it is due once (its sender then sends every frame it missed)
/// and next at its first frame strictly after that wake-up. A started member waits in a min-heap
/// keyed by its next frame time, so a wake-up costs O(due · log n), not a walk over everyone, and
/// allocates nothing once every member is in. One not started yet (transport not connected)
/// waits in `pending`, looked at on every wake-up; it is empty once everyone has connected.
struct LoadPacerSchedule<Member> {
    /// Names a member for `remove`.
    struct Handle: Hashable {
        fileprivate let value: Int
    }

    private struct Paced {
        let handle: Handle
        let member: Member
        /// Frame intervals of its streams, µs.
        let intervals: [Int64]
        /// When it started, µs (set when it leaves `pending`).
        var start: Int64 = 0
    }

    private var pending: [Paced] = []
    private var heap = TimerHeap<Paced>()
    /// The current heap timer of each started member (a new one each time it is due).
    private var timers: [Handle: TimerID] = [:]
    private var nextHandle = 0

    /// Adds a member, pending until `startTime` (of `popDue`) gives its start.
    mutating func add(_ member: Member, intervals: [Int64]) -> Handle {
        let handle = Handle(value: nextHandle)
        nextHandle += 1
        pending.append(Paced(handle: handle, member: member, intervals: intervals))
        return handle
    }

    /// The member is never due again.
    mutating func remove(_ handle: Handle) {
        if let timer = timers.removeValue(forKey: handle) {
            heap.cancel(timer)
        } else {
            pending.removeAll { $0.handle == handle }
        }
    }

    /// Calls `body` once with every member due at `now` (a pending member whose `startTime` is
    /// known is due at its start) and schedules each at its next frame after `now`.
    mutating func popDue(now: Int64, startTime: (Member) -> Int64?, _ body: (Member) -> Void) {
        var index = 0
        while index < pending.count {
            guard let start = startTime(pending[index].member) else {
                index += 1
                continue
            }
            pending.swapAt(index, pending.count - 1)
            var paced = pending.removeLast()
            paced.start = start
            timers[paced.handle] = heap.schedule(at: Self.deadline(start), paced)
        }
        while let paced = heap.popFirstDue(now: Self.deadline(now)) {
            body(paced.member)
            let next = Self.nextFrame(after: now, start: paced.start, intervals: paced.intervals)
            timers[paced.handle] = heap.schedule(at: Self.deadline(next), paced)
        }
    }

    /// When the earliest started member is next due, µs; nil when none has started.
    mutating func nextDue() -> Int64? {
        heap.nextDeadline().map { Int64($0) }
    }

    /// The first frame time of any stream strictly after `now` (`now` + 20 ms when no stream has
    /// frames, so such a member is looked at again on the pacer's idle beat).
    static func nextFrame(after now: Int64, start: Int64, intervals: [Int64]) -> Int64 {
        var next = Int64.max
        for interval in intervals where interval > 0 {
            let elapsed = max(0, now - start)
            next = min(next, start + (elapsed / interval + 1) * interval)
        }
        return next == .max ? now + 20_000 : next
    }

    private static func deadline(_ time: Int64) -> UInt64 { UInt64(max(0, time)) }
}
