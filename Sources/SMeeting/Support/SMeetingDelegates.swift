import Dispatch
import Synchronization

/// The weak multicast list behind `SMeetingEngine.delegates`: registering never extends an
/// observer's lifetime, and every event is delivered asynchronously on one serial queue.
///
/// ```swift
/// meeting.delegates.add(delegate: self)
/// meeting.delegates.remove(delegate: self)
/// ```
public final class SMeetingDelegates: Sendable {
    private struct Entry: @unchecked Sendable { weak var object: AnyObject? }
    private let entries = Mutex<[Entry]>([])

    /// Where observers are called (the engine's delegate queue).
    public let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    /// Adds an observer (held weakly); adding it twice keeps one registration.
    public func add(delegate: SMeetingDelegate) {
        let object = delegate as AnyObject
        entries.withLock { list in
            list.removeAll { $0.object == nil }
            if !list.contains(where: { $0.object === object }) { list.append(Entry(object: object)) }
        }
    }

    /// Removes an observer.
    public func remove(delegate: SMeetingDelegate) {
        let object = delegate as AnyObject
        entries.withLock { list in list.removeAll { $0.object == nil || $0.object === object } }
    }

    /// Observers registered and alive.
    public var count: Int { entries.withLock { $0.filter { $0.object != nil }.count } }

    /// Calls `body` for every observer on `queue`.
    func notify(_ body: @escaping @Sendable (SMeetingDelegate) -> Void) {
        queue.async { [self] in
            let live = entries.withLock { list in list.compactMap { $0.object as? SMeetingDelegate } }
            for delegate in live { body(delegate) }
        }
    }
}

/// Weakly held renderers called on the caller's (media) thread.
final class RendererList<Element>: Sendable {
    private struct Entry: @unchecked Sendable { weak var object: AnyObject? }
    private let entries = Mutex<[Entry]>([])

    func add(_ element: Element) {
        let object = element as AnyObject
        entries.withLock { list in
            list.removeAll { $0.object == nil }
            if !list.contains(where: { $0.object === object }) { list.append(Entry(object: object)) }
        }
    }

    func remove(_ element: Element) {
        let object = element as AnyObject
        entries.withLock { list in list.removeAll { $0.object == nil || $0.object === object } }
    }

    func forEach(_ body: (Element) -> Void) {
        let live = entries.withLock { list in list.compactMap { $0.object } }
        for object in live { if let e = object as? Element { body(e) } }
    }

    var isEmpty: Bool { entries.withLock { !$0.contains { $0.object != nil } } }
}
