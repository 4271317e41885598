import Foundation
import Synchronization

/// The clock of a load test, on one thread of its own: it hands each publisher its frames when
/// they are due (work posted to the publisher's I/O thread, which sends them), and once a second
/// has every publisher send its sender reports and every subscriber its receiver reports and
/// PLIs. Schedules are absolute, so a late wake-up sends what is due at once; who is due when is
/// `LoadPacerSchedule`'s rule.
final class LoadPacer: Sendable {
    private struct State {
        var schedule = LoadPacerSchedule<LoadPublisher>()
        var publishers: [LoadPublisher] = []
    }

    /// False for an idle run: reports only, no media.
    private let sendsMedia: Bool
    /// The pacer wakes at most this often, µs (0: at every publisher's due time). Each frame it
    /// hands a publisher is work posted to that publisher's I/O thread, and a post to a sleeping
    /// thread is a wake-up: with hundreds of publishers on two shared threads (`LoadRun`'s
    /// counting-only runs) a wake per frame was most of what the generator's threads still cost.
    /// Frames due within one interval go out together, up to the interval late (their send-time
    /// stamps are taken as they go).
    private let granularity: Int64
    private let state = Mutex(State())
    private let subscribers = Mutex<[LoadSubscriber]>([])
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(sendsMedia: Bool = true, granularity: Int64 = 0) {
        self.sendsMedia = sendsMedia
        self.granularity = max(0, granularity)
    }

    func add(_ publisher: LoadPublisher) {
        let intervals = publisher.streams.map(\.loop.frameInterval)
        state.withLock { state in
            state.publishers.append(publisher)
            if sendsMedia { _ = state.schedule.add(publisher, intervals: intervals) }
        }
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
            state.withLock { state in
                state.schedule.popDue(now: now, startTime: { $0.startTime }) { publisher in
                    publisher.execute { publisher, transport in
                        publisher.sendDue(now: LoadClock.now(), on: transport)
                    }
                }
                if let due = state.schedule.nextDue() { wake = min(wake, due) }
            }
            if now >= nextSecond {
                nextSecond += 1_000_000
                for publisher in state.withLock({ $0.publishers }) {
                    publisher.execute { publisher, transport in publisher.sendReports(on: transport) }
                }
                for subscriber in subscribers.withLock({ $0 }) {
                    _ = subscriber.execute { subscriber, transport in subscriber.sendFeedback(on: transport) }
                }
            }
            if granularity > 0 { wake = max(wake, now + granularity) }
            let sleep = wake - LoadClock.now()
            if sleep > 0 { usleep(UInt32(min(sleep, 20_000))) }
        }
    }
}
