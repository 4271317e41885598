import Synchronization

/// The latest copy of a value that one executor owns, for readers on any thread: a reader takes
/// a short lock and never waits for the owner's queue, so it cannot deadlock with it (an app
/// thread that the queue is waiting on may read). The owner publishes a new copy after each
/// change; readers see the last one published.
final class Snapshot<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// The last copy published.
    func read() -> Value { value.withLock { $0 } }

    /// Replaces the copy.
    func publish(_ new: Value) { value.withLock { $0 = new } }
}
