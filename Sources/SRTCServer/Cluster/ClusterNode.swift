import Dispatch
import Foundation
import RTCCrypto
import RTCNet
import Synchronization

/// This process as one node of a cluster (`--redis-url`): its entry in the node registry with
/// heartbeats and load, the channel directory, the shared nonce cache and the shared join limit.
/// Without `--redis-url` the server is one node and none of this exists.
public final class ClusterNode: Sendable {
    public let redis: RedisClient
    public let registry: NodeRegistry
    public let directory: ChannelDirectory
    public let nonces: RedisNonceStore
    public let joins: ClusterJoinLimiter
    /// Who sends the shared webhook outbox.
    public let outboxLease: OutboxLease
    /// Channel records, for the node that takes a channel over.
    let rooms: ClusterRoomRecords
    private let heartbeat = DispatchQueue(label: "srtc.cluster.heartbeat")
    private let loop = Mutex<Task<Void, Never>?>(nil)

    /// Connects to Redis (failing now if it cannot be reached).
    /// - Parameter node: this node (id, public IP); its HTTP URL is set by `start`.
    public init(config: ServerConfig, node: NodeInfo, heartbeatInterval: Duration = .seconds(1), ttl: Duration = .seconds(3)) throws {
        guard let url = config.cluster.redisURL else { throw RedisError.invalidURL("no --redis-url") }
        redis = try RedisClient(url: url)
        registry = NodeRegistry(redis: redis, node: node, interval: heartbeatInterval, ttl: ttl)
        directory = ChannelDirectory(registry: registry)
        nonces = RedisNonceStore(redis: redis)
        joins = ClusterJoinLimiter(redis: redis, joinsPerSecond: config.limits.joinsPerSecond)
        outboxLease = OutboxLease(redis: redis, nodeId: node.id)
        rooms = ClusterRoomRecords(redis: redis)
    }

    /// A node id for this process: `--node-id`, else random.
    public static func nodeId(configured: String?) -> String {
        configured ?? "node_" + SecureRandom.string(count: 10, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// Publishes this node, reachable at `httpURL` and for media at `mediaAddresses` (`ip port`),
    /// now, then every heartbeat interval with the load `load` reports and the packets `forwarded`
    /// says the SFU sent. Each beat blocks for a Redis round trip, so it runs on the node's
    /// heartbeat queue, never on a cooperative thread.
    public func start(httpURL: String, mediaAddresses: [String] = [], load: @escaping @Sendable () -> (channels: Int, participants: Int),
                      forwarded: @escaping @Sendable () async -> Int? = { nil }) throws {
        registry.setAddresses(httpURL: httpURL, media: mediaAddresses)
        try registry.beat(load())
        let registry = self.registry, queue = heartbeat
        let task = Task {
            while !Task.isCancelled {
                try? await TimerQueue.shared.sleep(for: registry.interval)
                guard !Task.isCancelled else { return }
                let packets = await forwarded()
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    queue.async {
                        do { try registry.beat(load(), forwardedPackets: packets) } catch { Log.warn("cluster", "heartbeat failed: \(error)") }
                        done.resume()
                    }
                }
            }
        }
        loop.withLock { $0 = task }
    }

    /// Records this node again as the owner of `channels` where no owner is recorded (Redis lost
    /// its data, or the entries expired while it was away), without taking a channel another
    /// node claimed meanwhile (`SET NX`). Blocks for a round trip per channel.
    public func reclaim(_ channels: [ChannelKey]) {
        // First this node's own entry, or the claims below would name a node others think dead.
        do { try registry.republish() } catch { Log.warn("cluster", "could not register again: \(error)") }
        var claimed = 0
        for channel in channels {
            if case .status = (try? redis.command(["SET", ChannelDirectory.key(channel), registry.nodeId, "NX"])) ?? .null { claimed += 1 }
        }
        if claimed > 0 { Log.info("cluster", "Redis is back: claimed \(claimed) of this node's \(channels.count) channel(s) again") }
    }

    /// Marks this node draining in the registry now (no new channels are placed here).
    public func startDraining() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            heartbeat.async { [registry] in
                do { try registry.setDraining(true) } catch { Log.warn("cluster", "could not publish the draining state: \(error)") }
                done.resume()
            }
        }
    }

    /// Stops heart-beating and leaves the registry (the others see it gone at once).
    public func stop() {
        loop.withLock { $0?.cancel(); $0 = nil }
        heartbeat.sync { registry.leave() }
    }
}
