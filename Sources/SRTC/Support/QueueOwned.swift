import Dispatch

/// A value that one serial queue owns: every read and change runs on that queue, in order with
/// the work already queued there. A caller already on the queue (an event handler, a timer of
/// the queue) runs at once; any other thread waits for the queue (`DispatchQueue.sync`).
///
/// This is the channel's one concurrency discipline (docs/architecture.md, "The SDK engine"):
/// its events, timers and public calls all meet on one queue, so there is no lock beside it.
/// A `sync` body must not call `sync` on the same value again (Swift's exclusive access to
/// `value` would trap): read what it needs first, act after.
///
/// `didChange` sees the value after every `sync`, on the queue: the channel publishes from it
/// the copy its public getters read (`Snapshot`), so that no getter waits for the queue.
// @unchecked Sendable: `value` is only read or written inside `sync`, which runs on `queue` (a serial queue), so no two threads ever touch it at once; `didChange` is only called there too.
final class QueueOwned<Value>: @unchecked Sendable {
    // MARK: - Properties

    /// The serial queue that owns the value.
    let queue: DispatchQueue
    /// Marks `queue`, so `sync` knows when it is already running there.
    private let key = DispatchSpecificKey<Bool>()
    private var value: Value
    private let didChange: ((Value) -> Void)?

    /// - Parameters:
    ///   - value: the initial value.
    ///   - queue: a serial queue; it is marked (`setSpecific`) to recognise its own threads.
    ///   - didChange: called with the value after each `sync`, on the queue.
    init(_ value: Value, queue: DispatchQueue, didChange: ((Value) -> Void)? = nil) {
        self.value = value
        self.queue = queue
        self.didChange = didChange
        queue.setSpecific(key: key, value: true)
    }

    // MARK: - Access

    /// Whether the caller runs on `queue` now.
    var isOwnerRunning: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Runs `body` on the value, on `queue`, and returns what it returns.
    func sync<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        if isOwnerRunning { return try run(body) }
        let result: Result<T, E> = queue.sync { Result { () throws(E) -> T in try run(body) } }
        return try result.get()
    }

    /// Runs `body` on the value (on `queue`), then `didChange`.
    private func run<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        defer { didChange?(value) }
        return try body(&value)
    }
}
