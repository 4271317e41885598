/// Which node runs each channel, in Redis: `srtc:channel:<app_id>/<name>` holds the owner's node
/// id. A channel keeps its owner for its whole life (sticky) while that node is alive, draining or
/// not; a new channel, or one whose owner died, is claimed for the least-loaded live node that is
/// not draining. The claim is one Lua script, so nodes racing for a channel agree on one owner.
public struct ChannelDirectory: Sendable {
    public let registry: NodeRegistry

    public init(registry: NodeRegistry) { self.registry = registry }

    static func key(_ channel: ChannelKey) -> String { "srtc:channel:\(channel.appId)/\(channel.name)" }

    /// Returns the current owner if its node key still exists; otherwise sets the candidate.
    static let claimScript = """
        local owner = redis.call('GET', KEYS[1])
        if owner and redis.call('EXISTS', 'srtc:node:' .. owner) == 1 then return owner end
        redis.call('SET', KEYS[1], ARGV[1])
        return ARGV[1]
        """

    /// Deletes the mapping only if this node still owns it.
    static let releaseScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """

    /// The node that runs `channel`, claiming it for the least-loaded eligible node if it has no
    /// live owner. Throws `ClusterError.noNodeAvailable` when every live node is draining.
    public func owner(of channel: ChannelKey) async throws -> NodeInfo {
        let nodes = try await registry.liveNodes()
        if case .string(let id) = try await registry.redis.run(["GET", Self.key(channel)]), let owner = nodes.first(where: { $0.id == id }) {
            return owner
        }
        guard let candidate = nodes.first(where: { !$0.draining }) else { throw ClusterError.noNodeAvailable }
        let claimed = try await registry.redis.run(["EVAL", Self.claimScript, "1", Self.key(channel), candidate.id]).text
        if let owner = nodes.first(where: { $0.id == claimed }) { return owner }
        // The owner was claimed by a node this listing did not see yet: read it again.
        return try await registry.liveNodes().first { $0.id == claimed } ?? candidate
    }

    /// The live node that runs `channel`, without placing it; `nil` when none does (Redis down
    /// included: the caller answers from this node).
    public func liveOwner(of channel: ChannelKey) async -> NodeInfo? {
        guard case .string(let id) = try? await registry.redis.run(["GET", Self.key(channel)]) else { return nil }
        if id == registry.nodeId { return registry.current }
        return try? await registry.liveNodes().first { $0.id == id }
    }

    /// Forgets `channel`'s owner if it is this node (the channel ended here).
    public func release(_ channel: ChannelKey) async {
        _ = try? await registry.redis.run(["EVAL", Self.releaseScript, "1", Self.key(channel), registry.nodeId])
    }
}

/// Errors of the cluster layer.
public enum ClusterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every live node is draining (or none is alive): no node can take a new channel.
    case noNodeAvailable

    public var description: String {
        switch self {
        case .noNodeAvailable: return "no node can take a new channel (all draining or none alive)"
        }
    }
}
