/// Where a node keeps shared state and how it takes part in a cluster (docs/deploy.md, "A cluster
/// of nodes"; README's flags table), read by `ServerApp` and `ClusterNode`.
public struct ClusterSettings: Sendable, Equatable {
    /// PostgreSQL instead of SQLite (`--database-url`, `SRTC_DATABASE_URL`): `postgres://user:password@host:port/db`.
    /// Every node of a cluster names the same database (docs/deploy.md, "A cluster of nodes").
    public var databaseURL: String?
    /// Redis shared by a cluster's nodes (`--redis-url`, `SRTC_REDIS_URL`): `redis://[:password@]host:port[/db]`.
    /// Unset: one node, nothing shared (docs/deploy.md, "A cluster of nodes").
    public var redisURL: String?
    /// This node's id in the cluster (`--node-id`, `SRTC_NODE_ID`); random at start when unset.
    public var nodeId: String?
    /// This node's HTTP base URL as the other nodes reach it (`--node-url`, `SRTC_NODE_URL`);
    /// default `http://<public IP or bind address>:<http port>` (`https://` with TLS on).
    public var nodeURL: String?
    /// Seconds a draining node (`SIGTERM` on a cluster node) keeps serving its channels before it
    /// moves their remaining clients to other nodes (`--drain-seconds`, `SRTC_DRAIN_SECONDS`).
    public var drainSeconds: Int = 30
    /// Seconds the node waits at start for its database and Redis to answer, retrying with
    /// backoff, before it gives up (`--startup-timeout`, `SRTC_STARTUP_TIMEOUT`).
    public var startupTimeoutSeconds: Int = 60

    public init() {}
}
