/// What a channel's media needs to relay the channel to other nodes (docs/deploy.md, "Channels
/// larger than a node"): the signed calls between nodes and `--node-channel-subscribers`.
struct ChannelRelaying: Sendable {
    let forwarder: ClusterForwarder
    /// Participants of one channel this node serves itself; 0: no limit.
    let limit: Int
}
