import Foundation
import Synchronization

/// The cluster's live nodes in Redis (`ClusterNode` drives the heartbeats). Each node writes `srtc:node:<id>` (its `NodeInfo` as JSON)
/// with a time-to-live of `ttl` at every heartbeat and lists its id in the set `srtc:nodes`. A node
/// that stops heart-beating (killed, partitioned) disappears when its key expires, so it is
/// declared dead within `ttl` without any node having to decide it; Redis's own expiry clock
/// decides, so the nodes' clocks need not agree.
public final class NodeRegistry: Sendable {
    /// Keys shared by every node.
    enum Keys {
        static let nodes = "srtc:nodes"
        static func node(_ id: String) -> String { "srtc:node:\(id)" }
    }

    public let redis: RedisClient
    public let nodeId: String
    /// Heartbeat period and the key's time-to-live (a node is dead at most `ttl` after its last beat).
    public let interval: Duration
    public let ttl: Duration
    private let info: Mutex<NodeInfo>
    /// Process CPU seconds, wall time and forwarded packets at the previous heartbeat.
    private let lastSample = Mutex<(cpu: Double, wall: Double, packets: Int?)?>(nil)

    public init(redis: RedisClient, node: NodeInfo, interval: Duration = .seconds(2), ttl: Duration = .seconds(6)) {
        self.redis = redis
        self.nodeId = node.id
        self.interval = interval
        self.ttl = ttl
        self.info = Mutex(node)
    }

    /// Removes this node at once (a clean shutdown needs no timeout).
    public func leave() {
        _ = try? redis.command(["DEL", Keys.node(nodeId)])
        _ = try? redis.command(["SREM", Keys.nodes, nodeId])
    }

    /// Marks this node draining (no new channels) and publishes it now.
    public func setDraining(_ draining: Bool) throws {
        let current = info.withLock { $0.draining = draining; return $0 }
        try beat((current.channels, current.participants), forwardedPackets: nil)
    }

    /// Sets the URL other nodes reach this one at and its UDP media addresses (`ip port`), both
    /// known once the servers are bound.
    public func setAddresses(httpURL: String, media: [String]) {
        info.withLock {
            $0.httpURL = httpURL
            $0.mediaAddresses = media
        }
    }

    /// This node as last published.
    public var current: NodeInfo { info.withLock { $0 } }

    /// The live node `id`, or `nil` when it is not (or no longer) registered.
    public func node(id: String) async -> NodeInfo? {
        guard let json = try? await redis.run(["GET", Keys.node(id)]).text else { return nil }
        return try? JSONDecoder().decode(NodeInfo.self, from: Data(json.utf8))
    }

    /// Every live node (its key not expired), forgetting the ids of dead ones.
    public func liveNodes() async throws -> [NodeInfo] {
        guard case .array(let ids) = try await redis.run(["SMEMBERS", Keys.nodes]) else { return [] }
        let names = ids.compactMap(\.text)
        guard !names.isEmpty else { return [] }
        guard case .array(let values) = try await redis.run(["MGET"] + names.map(Keys.node)) else { return [] }
        var live: [NodeInfo] = []
        for (id, value) in zip(names, values) {
            if let json = value.text, let node = try? JSONDecoder().decode(NodeInfo.self, from: Data(json.utf8)) {
                live.append(node)
            } else {
                _ = try? await redis.run(["SREM", Keys.nodes, id])
            }
        }
        return live.sorted(by: NodeInfo.lessLoaded)
    }

    /// Publishes this node as last published, at once (Redis came back empty).
    public func republish() throws {
        try publish(current)
    }

    /// Publishes this node with `load` (blocking for two round trips: call it off the cooperative pool).
    /// - Parameter forwardedPackets: the SFU's packets forwarded since start, if known (the
    ///   published figure is their rate since the previous beat).
    public func beat(_ load: (channels: Int, participants: Int), forwardedPackets: Int? = nil) throws {
        let rates = ratesSinceLastBeat(forwardedPackets: forwardedPackets)
        let node = info.withLock { node -> NodeInfo in
            node.channels = load.channels
            node.participants = load.participants
            if let cpu = rates.cpu { node.cpu = cpu }
            if let packets = rates.packets { node.packetsPerSecond = packets }
            node.heartbeatAt = Int64(Date().timeIntervalSince1970 * 1000)
            return node
        }
        try publish(node)
    }

    private func publish(_ node: NodeInfo) throws {
        let json = String(decoding: try JSONEncoder().encode(node), as: UTF8.self)
        let milliseconds = ttl.components.seconds * 1000 + ttl.components.attoseconds / 1_000_000_000_000_000
        try redis.command(["SET", Keys.node(nodeId), json, "PX", String(milliseconds)])
        try redis.command(["SADD", Keys.nodes, nodeId])
    }

    // MARK: - Internals


    /// Process CPU seconds and forwarded packets per wall second since the previous call
    /// (`getrusage`), each `nil` when there is nothing to compare with yet.
    private func ratesSinceLastBeat(forwardedPackets: Int?) -> (cpu: Double?, packets: Double?) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let wall = Date().timeIntervalSince1970
        return lastSample.withLock { last -> (Double?, Double?) in
            defer { last = (cpu, wall, forwardedPackets ?? last?.packets) }
            guard let last, wall > last.wall else { return (nil, nil) }
            let elapsed = wall - last.wall
            var packets: Double?
            if let now = forwardedPackets, let before = last.packets { packets = Double(max(0, now - before)) / elapsed }
            return ((cpu - last.cpu) / elapsed, packets)
        }
    }
}
