import Foundation

/// Where a channel runs, for the modules built on the server (docs/deploy.md, "A cluster of
/// nodes"): the meeting backend runs a meeting's live room on the node that runs its channel and
/// relays meeting WebSockets there. `nil` in `ServerModuleContext` on a single node.
public struct ClusterPlacement: Sendable {
    let directory: ChannelDirectory

    /// This node's id in the registry.
    public var nodeId: String { directory.registry.nodeId }

    /// The node that runs `channel` (placing it on the least-loaded node if none does), or `nil`
    /// when it is this node. Throws `ClusterError.noNodeAvailable` when every node is draining.
    public func node(running channel: ChannelKey) async throws -> NodeInfo? {
        let owner = try await directory.owner(of: channel)
        return owner.id == nodeId ? nil : owner
    }

    /// Gives up `channel` if this node runs it (it drains), so the next entry places it elsewhere
    /// even when the channel itself never started here.
    public func release(_ channel: ChannelKey) async {
        await directory.release(channel)
    }

    /// The HTTP base URL of the live node `id` (draining or not), or `nil` when the registry no
    /// longer lists it (it stopped, or died and its entry expired) or cannot be read.
    public func liveNodeURL(id: String) async -> String? {
        await directory.registry.node(id: id)?.httpURL
    }

    /// Keeps a module's record of something live (a meeting's room) where the node that takes
    /// its channel over finds it: Redis key `srtc:record:<key>`, for a day after the last save.
    /// Saves are applied in call order, without waiting; `nil` deletes.
    public func save(record: Data?, key: String) {
        let redis = directory.registry.redis
        guard let record else {
            redis.send(["DEL", Self.recordKey(key)])
            return
        }
        redis.send(["SET", Self.recordKey(key), String(decoding: record, as: UTF8.self), "EX", String(ClusterRoomRecords.lifetimeSeconds)])
    }

    /// Saves like `save`, and returns once Redis applied it (a record another node reads next).
    public func store(record: Data, key: String) async throws {
        _ = try await directory.registry.redis.run(["SET", Self.recordKey(key), String(decoding: record, as: UTF8.self),
                                                    "EX", String(ClusterRoomRecords.lifetimeSeconds)])
    }

    /// The record last saved under `key` (after every earlier save of this node), or `nil`.
    public func record(key: String) async -> Data? {
        guard case .string(let json) = try? await directory.registry.redis.run(["GET", Self.recordKey(key)]) else { return nil }
        return Data(json.utf8)
    }

    static func recordKey(_ key: String) -> String { "srtc:record:" + key }
}
