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
}
