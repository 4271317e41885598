import Foundation
import Synchronization

/// The clock of a load test, on one thread of its own: it hands each publisher its frames when
/// they are due (work posted to the publisher's I/O thread, which sends them), and once a second
/// has every publisher send its sender reports and every subscriber its receiver reports and
/// PLIs. Schedules are absolute, so a late wake-up sends what is due at once.
final class LoadPacer: Sendable {
    private struct Scheduled {
        let publisher: LoadPublisher
        /// Frame intervals of its streams, µs.
        let intervals: [Int64]
        var nextPost: Int64 = 0
    }

    /// False for an idle run: reports only, no media.
    private let sendsMedia: Bool
    private let publishers = Mutex<[Scheduled]>([])
    private let subscribers = Mutex<[LoadSubscriber]>([])
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(sendsMedia: Bool = true) {
        self.sendsMedia = sendsMedia
    }

    func add(_ publisher: LoadPublisher) {
        let intervals = publisher.streams.map(\.loop.frameInterval)
        publishers.withLock { $0.append(Scheduled(publisher: publisher, intervals: intervals)) }
    }

    func add(_ subscriber: LoadSubscriber) {
        subscribers.withLock { $0.append(subscriber) }
    }

    func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in run() }
        thread.name = "srtc-load-pacer"
        thread.start()
    }

    /// Stops the thread and waits for it.
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }

    private func run() {
        defer { finished.signal() }
        var nextSecond = LoadClock.now() + 1_000_000
        while running.load(ordering: .acquiring) {
            let now = LoadClock.now()
            var wake = min(nextSecond, now + 20_000)
            publishers.withLock { list in
                for index in list.indices where sendsMedia {
                    guard let start = list[index].publisher.startTime else { continue }
                    if list[index].nextPost <= now {
                        list[index].publisher.execute { publisher, transport in
                            publisher.sendDue(now: LoadClock.now(), on: transport)
                        }
                        list[index].nextPost = Self.nextFrame(after: now, start: start, intervals: list[index].intervals)
                    }
                    wake = min(wake, list[index].nextPost)
                }
            }
            if now >= nextSecond {
                nextSecond += 1_000_000
                for scheduled in publishers.withLock({ $0 }) {
                    scheduled.publisher.execute { publisher, transport in publisher.sendReports(on: transport) }
                }
                for subscriber in subscribers.withLock({ $0 }) {
                    _ = subscriber.execute { subscriber, transport in subscriber.sendFeedback(on: transport) }
                }
            }
            let sleep = wake - LoadClock.now()
            if sleep > 0 { usleep(UInt32(min(sleep, 20_000))) }
        }
    }

    /// The first frame time of any stream strictly after `now`.
    static func nextFrame(after now: Int64, start: Int64, intervals: [Int64]) -> Int64 {
        var next = Int64.max
        for interval in intervals where interval > 0 {
            let elapsed = max(0, now - start)
            next = min(next, start + (elapsed / interval + 1) * interval)
        }
        return next == .max ? now + 20_000 : next
    }
}
