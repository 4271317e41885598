import Dispatch
import Synchronization

/// A thread-safe list of strings tests append to.
final class EventLog: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}

/// Marks a queue so a callback can tell it runs there.
let queueNameKey = DispatchSpecificKey<String>()

func namedQueue(_ name: String) -> DispatchQueue {
    let queue = DispatchQueue(label: name)
    queue.setSpecific(key: queueNameKey, value: name)
    return queue
}

/// Waits until everything queued on `queue` so far has run.
func drain(_ queue: DispatchQueue) async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { c.resume() } }
}
