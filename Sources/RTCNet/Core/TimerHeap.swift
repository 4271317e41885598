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

/// A binary min-heap of timers keyed by deadline, owned by one event loop.
///
/// Cancelling only removes the timer's action from a dictionary; its heap entry is skipped when it
/// surfaces. Connections rearm their deadlines lazily, so the heap sees at most one entry per timeout.
struct TimerHeap {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    var isEmpty: Bool { actions.isEmpty }

    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return TimerID(value: id)
    }

    mutating func cancel(_ timer: TimerID) {
        actions[timer.value] = nil
        if actions.isEmpty { heap.removeAll(keepingCapacity: true) }
    }

    /// The earliest deadline of a live timer, dropping cancelled entries on the way.
    mutating func nextDeadline() -> UInt64? {
        while let top = heap.first {
            if actions[top.id] != nil { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns the actions of every timer due at `now`, earliest first.
    mutating func popDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let action = actions.removeValue(forKey: top.id) { due.append(action) }
        }
        return due
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
