import Foundation

/// How many media workers the servers that tests start run: `SRTC_TEST_MEDIA_WORKERS`, default 1
/// (one UDP port, which tests that relay or count datagrams on `udpPort` rely on). `make test`
/// runs the TURN, data-channel, drain and failover suites again with 2 (docs/architecture.md,
/// "Media workers"), and `TestServer` then puts their channels on the last worker. A test about
/// workers sets `ServerConfig.media.workers` itself (and placement decides).
public enum TestMediaWorkers {
    public static let count: Int = {
        guard let text = ProcessInfo.processInfo.environment["SRTC_TEST_MEDIA_WORKERS"], let n = Int(text), n > 0 else { return 1 }
        return n
    }()

    /// The `--worker-subscriber-budget` of those servers: `SRTC_TEST_WORKER_SUBSCRIBER_BUDGET`,
    /// default the server's own. A small one (1) puts every participant after a channel's first
    /// on another worker, so the suites run again with their subscriptions served through the
    /// pipes between workers (docs/architecture.md, "A channel larger than a worker").
    public static let subscriberBudget: Int? = {
        guard let text = ProcessInfo.processInfo.environment["SRTC_TEST_WORKER_SUBSCRIBER_BUDGET"], let n = Int(text), n >= 0 else { return nil }
        return n
    }()

    /// The flags that give a `srtc-server` process `count` workers (and the budget), unless `arguments` choose.
    static func flags(unlessIn arguments: [String]) -> [String] {
        var flags = arguments.contains("--media-workers") ? [] : ["--media-workers", String(count)]
        if let subscriberBudget, !arguments.contains("--worker-subscriber-budget") {
            flags += ["--worker-subscriber-budget", String(subscriberBudget)]
        }
        return flags
    }
}
