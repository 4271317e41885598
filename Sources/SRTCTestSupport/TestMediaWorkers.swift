import Foundation

/// How many media workers the servers that tests start run: `SRTC_TEST_MEDIA_WORKERS`, default 1
/// (one UDP port, which tests that relay or count datagrams on `udpPort` rely on). `make test`
/// runs the TURN, data-channel, drain and failover suites again with 2 (docs/architecture.md,
/// "Media workers"), and `TestServer` then puts their channels on the last worker. A test about
/// workers sets `ServerConfig.mediaWorkers` itself (and placement decides).
public enum TestMediaWorkers {
    public static let count: Int = {
        guard let text = ProcessInfo.processInfo.environment["SRTC_TEST_MEDIA_WORKERS"], let n = Int(text), n > 0 else { return 1 }
        return n
    }()

    /// The flags that give a `srtc-server` process `count` workers, unless `arguments` choose.
    static func flags(unlessIn arguments: [String]) -> [String] {
        arguments.contains("--media-workers") ? [] : ["--media-workers", String(count)]
    }
}
