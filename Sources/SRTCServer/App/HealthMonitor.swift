import Dispatch
import Synchronization

/// Asks the node's database and Redis whether they answer, every `interval`, and tells
/// `NodeHealth`. The checks block for a round trip (and for a reconnection attempt while a
/// service is down), so they run on a queue of their own, never on an event loop or the
/// cooperative pool; a check that hangs delays only the next check.
final class HealthMonitor: Sendable {
    private let health: NodeHealth
    private let database: any Database
    private let redis: RedisClient?
    private let interval: DispatchTimeInterval
    private let queue = DispatchQueue(label: "srtc.health")
    private let running = Atomic<Bool>(false)
    /// Called after a check that found Redis answering again (the node re-asserts what it owns).
    private let redisRecovered: @Sendable () -> Void

    init(health: NodeHealth, database: any Database, redis: RedisClient?, interval: DispatchTimeInterval = .seconds(1),
         redisRecovered: @escaping @Sendable () -> Void = {}) {
        self.health = health
        self.database = database
        self.redis = redis
        self.interval = interval
        self.redisRecovered = redisRecovered
    }

    func start() {
        guard !running.exchange(true, ordering: .relaxed) else { return }
        queue.async { [self] in check() }
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// One round of checks, then the next one scheduled.
    private func check() {
        guard running.load(ordering: .relaxed) else { return }
        do {
            try database.query("SELECT 1")
            health.report(.database, failure: nil)
        } catch {
            health.report(.database, failure: String(describing: error))
        }
        if let redis {
            let wasFailing = health.failure(of: .redis) != nil
            do {
                try redis.command(["PING"])
                // Before reporting healthy: whoever waits for /healthz finds the node's state back.
                if wasFailing { redisRecovered() }
                health.report(.redis, failure: nil)
            } catch {
                health.report(.redis, failure: String(describing: error))
            }
        }
        queue.asyncAfter(deadline: .now() + interval) { [self] in check() }
    }
}
