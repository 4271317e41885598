import Dispatch
import Synchronization

/// A list of weakly held observers that are notified on one serial queue.
///
/// Registering never extends an observer's lifetime: an observer that is released simply stops
/// receiving events. Every notification is delivered asynchronously on `queue` (the engine's
/// delegate queue, `.main` by default), in the order the SDK raised them.
///
/// ```swift
/// channel.delegates.add(delegate: self)
/// channel.delegates.remove(delegate: self)
/// ```
public final class MulticastDelegate<Delegate>: Sendable {
    // MARK: - Types

    /// One registration; `object` goes nil when the observer is released.
    // @unchecked Sendable: an Entry lives only inside `entries` (a Mutex); the weak reference is read and pruned with that lock held, and observers are called on `queue`.
    private struct Entry: @unchecked Sendable {
        weak var object: AnyObject?
    }

    // MARK: - Properties

    /// Where observers are called.
    public let queue: DispatchQueue
    private let entries = Mutex<[Entry]>([])

    /// - Parameter queue: the serial queue observers are called on.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    // MARK: - Public API

    /// Adds an observer (held weakly). Adding the same object twice keeps one registration.
    public func add(delegate: Delegate) {
        let object = delegate as AnyObject
        entries.withLock { list in
            list.removeAll { $0.object == nil }
            guard !list.contains(where: { $0.object === object }) else { return }
            list.append(Entry(object: object))
        }
    }

    /// Removes an observer; it receives nothing raised after this call returns... except
    /// notifications already running on `queue`.
    public func remove(delegate: Delegate) {
        let object = delegate as AnyObject
        entries.withLock { list in list.removeAll { $0.object == nil || $0.object === object } }
    }

    /// Observers currently registered and alive.
    public var count: Int {
        entries.withLock { list in list.reduce(0) { $0 + ($1.object == nil ? 0 : 1) } }
    }

    // MARK: - Internals

    /// The live observers now.
    package func snapshot() -> [Delegate] {
        entries.withLock { list in
            list.removeAll { $0.object == nil }
            return list.compactMap { $0.object as? Delegate }
        }
    }

    /// Calls `body` for every observer on `queue`. The observer list is read when the block runs,
    /// so an observer removed before then is skipped.
    package func notify(_ body: @escaping @Sendable (Delegate) -> Void) {
        queue.async { [self] in
            for delegate in snapshot() { body(delegate) }
        }
    }
}
