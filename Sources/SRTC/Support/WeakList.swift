import Synchronization

/// Weakly held objects called synchronously on the caller's thread (renderers on media threads,
/// where a hop to the delegate queue per frame would cost too much). Shared with SMeeting.
package final class WeakList<Element>: Sendable {
    // @unchecked Sendable: an Entry lives only inside `entries` (a Mutex); the weak reference is read and pruned with that lock held.
    private struct Entry: @unchecked Sendable {
        weak var object: AnyObject?
    }

    private let entries = Mutex<[Entry]>([])

    package init() {}

    package func add(_ element: Element) {
        let object = element as AnyObject
        entries.withLock { list in
            list.removeAll { $0.object == nil }
            if !list.contains(where: { $0.object === object }) { list.append(Entry(object: object)) }
        }
    }

    package func remove(_ element: Element) {
        let object = element as AnyObject
        entries.withLock { list in list.removeAll { $0.object == nil || $0.object === object } }
    }

    package var isEmpty: Bool { entries.withLock { list in !list.contains { $0.object != nil } } }

    /// Calls `body` for each live element (outside the lock).
    package func forEach(_ body: (Element) -> Void) {
        let live: [AnyObject] = entries.withLock { list in list.compactMap { $0.object } }
        for object in live {
            if let element = object as? Element { body(element) }
        }
    }
}
