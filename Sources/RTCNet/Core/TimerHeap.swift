#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds, the clock every deadline in the reactor uses.
public enum Monotonic {
    /// Nanoseconds since an arbitrary fixed point; never goes backwards.
    @inline(__always)
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// `now()` in microseconds (the SFU's packet clock; send-queue stamps).
    @inline(__always)
    public static func microseconds() -> Int64 { Int64(now() / 1000) }

    /// `now()` in seconds, for state machines that keep time as `Double` seconds.
    @inline(__always)
    public static func seconds() -> Double { Double(now()) / 1e9 }

    /// `duration` in nanoseconds, clamped to zero and to about 290 years.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        if seconds > 9_000_000_000 { return UInt64(Int64.max) }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// Identifies a scheduled timer so it can be cancelled.
public struct TimerID: Hashable, Sendable {
    let value: UInt64
}

/// A binary min-heap of timers keyed by deadline, owned by one event loop (or one `TimerQueue`).
///
/// Cancelling removes the timer's action (and what it captures) at once; its heap entry is skipped
/// when it surfaces, and the heap is rebuilt from the live entries once cancelled ones outnumber
/// them, so long timers that are mostly cancelled (session expiry) do not pile up. Package-wide:
/// the load generator's pacer keeps its publishers' next frame times in one.
package struct TimerHeap<Action> {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: Action] = [:]
    private var nextID: UInt64 = 1

    package init() {}

    package var isEmpty: Bool { actions.isEmpty }
    /// Live (scheduled, not cancelled, not yet due) timers.
    package var count: Int { actions.count }
    /// Heap entries, cancelled ones included (for tests of the compaction).
    var storedEntries: Int { heap.count }

    package mutating func schedule(at deadline: UInt64, _ action: Action) -> TimerID {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return TimerID(value: id)
    }

    package mutating func cancel(_ timer: TimerID) {
        guard actions.removeValue(forKey: timer.value) != nil else { return }
        if actions.isEmpty {
            heap.removeAll(keepingCapacity: heap.count <= 1024)
        } else if heap.count > 64, heap.count > 2 * actions.count {
            compact()
        }
    }

    /// Rebuilds the heap from the live entries only (Floyd's bottom-up construction).
    private mutating func compact() {
        heap.removeAll { actions[$0.id] == nil }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// The earliest deadline of a live timer, dropping cancelled entries on the way.
    package mutating func nextDeadline() -> UInt64? {
        while let top = heap.first {
            if actions[top.id] != nil { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns the actions of every timer due at `now`, earliest first.
    package mutating func popDue(now: UInt64) -> [Action] {
        var due: [Action] = []
        while let action = popFirstDue(now: now) { due.append(action) }
        return due
    }

    /// Removes and returns the action of the earliest timer due at `now`, nil when none is: the
    /// form of `popDue` for a caller that must not allocate per wake-up (it may schedule again
    /// between calls, at a later deadline).
    package mutating func popFirstDue(now: UInt64) -> Action? {
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let action = actions.removeValue(forKey: top.id) { return action }
        }
        return nil
    }

    // MARK: - Heap internals

    private mutating func popTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
