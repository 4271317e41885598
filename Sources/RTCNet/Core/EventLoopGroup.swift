import Foundation
import Synchronization

/// A fixed set of event loops; connections are spread over them round-robin.
public final class EventLoopGroup: Sendable {
    /// The loops, each with its own thread.
    public let loops: [EventLoop]
    private let cursor = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// Starts `loopCount` loop threads (default: one per core).
    /// - Parameters:
    ///   - loopCount: number of threads; values below 1 mean 1.
    ///   - backend: readiness API; `.automatic` is epoll on Linux.
    public init(loopCount: Int = ProcessInfo.processInfo.activeProcessorCount, backend: EventLoop.Backend = .automatic) throws(NetError) {
        var loops: [EventLoop] = []
        for i in 0..<max(1, loopCount) {
            do {
                loops.append(try EventLoop(index: i, backend: backend))
            } catch {
                for loop in loops { loop.stop() }
                throw error
            }
        }
        self.loops = loops
    }

    /// The next loop in round-robin order.
    public func next() -> EventLoop {
        let i = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[(i & Int.max) % loops.count]
    }

    /// Stops every loop thread. Connections still registered are abandoned, so stop servers and
    /// clients first. Idempotent; must not be called from one of the group's own threads.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for loop in loops { loop.stop() }
    }

    /// The process-wide group that clients (HTTP, WebSocket) use unless given one: up to two loops.
    public static let shared: EventLoopGroup = {
        do {
            return try EventLoopGroup(loopCount: min(2, ProcessInfo.processInfo.activeProcessorCount))
        } catch {
            fatalError("cannot start the shared event loop group: \(error)")
        }
    }()
}
