import Foundation

/// Where a channel runs, for the modules built on the server (docs/deploy.md, "A cluster of
/// nodes"): the meeting backend runs a meeting's live room on the node that runs its channel and
/// relays meeting WebSockets there. `nil` in `ServerModuleContext` on a single node.
public struct ClusterPlacement: Sendable {
    let directory: ChannelDirectory

    /// The HTTP base URL of the node that runs `channel` (placing it on the least-loaded node if
    /// none does), or `nil` when it is this node. Throws `ClusterError.noNodeAvailable` when every
    /// node is draining.
    public func node(running channel: ChannelKey) async throws -> String? {
        let owner = try await directory.owner(of: channel)
        return owner.id == directory.registry.nodeId ? nil : owner.httpURL
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

    /// The record last saved under `key` (after every earlier save of this node), or `nil`.
    public func record(key: String) async -> Data? {
        guard case .string(let json) = try? await directory.registry.redis.run(["GET", Self.recordKey(key)]) else { return nil }
        return Data(json.utf8)
    }

    static func recordKey(_ key: String) -> String { "srtc:record:" + key }
}
