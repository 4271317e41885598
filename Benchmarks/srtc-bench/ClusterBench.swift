// Cluster benchmarks (docs/deploy.md, "A cluster of nodes"): two nodes on one throwaway
// `redis-server` (started here like the tests' own) on loopback. Printed, never asserted.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RTCNet
import SRTCProtocol
import SRTCServer
import SRTCTestSupport

/// Join latency through the channel's node vs through another node (relayed), a channel call
/// answered by the owner vs forwarded to it, and signed grants per second with the nonce cache
/// in the process vs in Redis.
func runClusterBenchmarks() {
    print("== cluster (two nodes on one redis-server, loopback)")
    do {
        try blocking { try await ClusterBench().run() }
    } catch {
        print("  cluster benchmark skipped: \(error)")
    }
}

private struct ClusterBenchError: Error, CustomStringConvertible {
    let description: String
}

private struct ClusterBench {
    func run() async throws {
        let redis = try await TestRedis.freshURL()
        // Sequential joins of one channel from one address outrun --joins-per-second and
        // --address-joins-per-second (20 each): lift both for the run.
        let a = try TestServer { $0.cluster.redisURL = redis; $0.cluster.nodeId = "a"; $0.logLevel = "error"; $0.http.threads = 2; $0.limits.joinsPerSecond = 100_000
            $0.limits.addressJoinsPerSecond = 0 }
        let b = try TestServer { $0.cluster.redisURL = redis; $0.cluster.nodeId = "b"; $0.logLevel = "error"; $0.http.threads = 2; $0.limits.joinsPerSecond = 100_000
            $0.limits.addressJoinsPerSecond = 0 }
        let single = try TestServer { $0.logLevel = "error"; $0.http.threads = 2 }
        // The channel is placed on a (both idle: ties go to the smaller id) by its first join.
        let anchor = try await TestSignalClient(url: a.wsURL)
        _ = try await anchor.join(token: a.token(uid: "anchor", channel: "bench"))
        for (label, server) in [("join on the channel's node", a), ("join relayed by another node", b)] {
            var times: [Double] = []
            for i in 0..<60 {
                let start = DispatchTime.now().uptimeNanoseconds
                let client = try await TestSignalClient(url: server.wsURL)
                _ = try await client.join(token: server.token(uid: "u\(i)", channel: "bench"))
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                client.close()
            }
            print(Self.line(label, times.dropFirst(10).sorted()))
        }
        for (label, server) in [("channel/users on the channel's node", a), ("channel/users forwarded to it", b)] {
            var times: [Double] = []
            for _ in 0..<110 {
                let start = DispatchTime.now().uptimeNanoseconds
                let (status, _) = try await server.call("/server/v1/channel/users", ["channel": "bench"])
                guard status == 200 else { throw ClusterBenchError(description: "channel/users answered \(status)") }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            print(Self.line(label, times.dropFirst(10).sorted()))
        }
        // Grants on a single node (SQLite, nonces in the process) and on cluster nodes (nonces in
        // Redis), with SQLite and with PostgreSQL as the store.
        var postgres = ServerConfig()
        try await TestStore.postgres.configure(&postgres)
        let pg = try TestServer { $0.cluster.redisURL = redis; $0.cluster.nodeId = "p"; $0.logLevel = "error"; $0.http.threads = 2; $0.cluster.databaseURL = postgres.cluster.databaseURL }
        for (label, server) in [("grants, SQLite, nonces in the process", single), ("grants, SQLite, nonces in redis", a),
                                ("grants, PostgreSQL, nonces in redis", pg)] {
            let result = grantLoad(port: server.app.httpPort)
            print(String(format: "  %-40@ %9.0f req/s   p50 %6.3f ms   p99 %6.3f ms", label as NSString,
                         result.requestsPerSecond, result.p50 * 1000, result.p99 * 1000))
        }
        anchor.close()
        await pg.stop()
        await single.stop()
        await b.stop()
        await a.stop()
        try await relayCost(redis: try await TestRedis.freshURL())
    }

    /// CPU per forwarded packet of a node in its own process: serving a channel's subscribers
    /// itself, and relaying a channel another node runs to the same subscribers
    /// (docs/deploy.md, "Channels larger than a node").
    func relayCost(redis: String, subscribers: Int = 10) async throws {
        let owner = try TestServer { $0.cluster.redisURL = redis; $0.cluster.nodeId = "a"; $0.logLevel = "error"; $0.limits.nodeChannelSubscribers = 1
            $0.limits.joinsPerSecond = 1000; $0.limits.addressJoinsPerSecond = 0 }
        for (label, relayed) in [("serving its own channel", false), ("relaying another node's channel", true)] {
            let channel = relayed ? "relayed" : "own"
            // b runs the channel itself unless a (the smaller id, both idle) took it first.
            let b = try await TestNodeProcess(arguments: ["--redis-url", redis, "--node-id", relayed ? "b" : "0",
                                                          "--node-channel-subscribers", "1", "--joins-per-second", "1000",
                                                          "--address-joins-per-second", "0", "--log-level", "error"])
            let publisherURL = relayed ? owner.wsURL : "ws://127.0.0.1:\(b.httpPort)/rtc/v1/ws"
            let publisher = try await MediaTestClient(signalingURL: publisherURL, uid: "pub", token: owner.token(uid: "pub", channel: channel))
            let tracks = try await publisher.publish(audioSSRC: 0xBE7C_0001, video: [Self.video])
            var clients: [MediaTestClient] = []
            for i in 0..<subscribers {
                let client = try await MediaTestClient(signalingURL: "ws://127.0.0.1:\(b.httpPort)/rtc/v1/ws", uid: "s\(i)",
                                                       token: owner.token(uid: "s\(i)", channel: channel))
                for track in tracks { try await client.subscribe(track.id) }
                clients.append(client)
            }
            let sender = try MediaTestPublisher(client: publisher, audioSSRC: 0xBE7C_0001, video: [Self.video])
            try await sender.run(seconds: 1)
            let before = try await Self.packetsOut(b), cpuBefore = CPUTime.process(pid: b.pid) ?? 0
            try await sender.run(seconds: 4)
            try await Task.sleep(for: .seconds(1.2))  // the node's metrics are published each second
            let packets = try await Self.packetsOut(b) - before, cpu = (CPUTime.process(pid: b.pid) ?? 0) - cpuBefore
            print(String(format: "  node %-35@ %7.0f packets out   %6.1f µs CPU per forwarded packet", label as NSString,
                         packets, packets > 0 ? cpu / packets : 0))
            for client in clients { client.close() }
            publisher.close()
            b.send(SIGKILL)
            _ = try await b.waitForExit()
        }
        await owner.stop()
    }

    static let video = MediaTestClient.VideoLayer(rid: "l", desc: "camera_small", ssrc: 0xBE7C_0002, width: 320, height: 180)

    /// RTP packets the node's SFU sent (its `/metrics`).
    static func packetsOut(_ node: TestNodeProcess) async throws -> Double {
        let answer = try await HTTPClient().get(node.url + "/metrics")
        let text = String(decoding: answer.body, as: UTF8.self)
        let prefix = #"srtc_media_packets_total{direction="out",kind="rtp"} "#
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }), let value = Double(line.dropFirst(prefix.count)) else {
            throw ClusterBenchError(description: "no packets counter in /metrics")
        }
        return value
    }

    static func line(_ label: String, _ sorted: [Double]) -> String {
        let p50 = sorted[sorted.count / 2], p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        return String(format: "  %-40@ p50 %7.2f ms   p99 %7.2f ms   (%d runs)", label as NSString, p50, p99, sorted.count)
    }

    /// Signed grants for 2 s from 2 threads x 8 keep-alive connections, each with its own nonce.
    func grantLoad(port: UInt16) -> HTTPLoadClient.Result {
        let now = Int64(Date().timeIntervalSince1970)
        let body = Array(#"{"channel":"bench-room","uid":"user-0001"}"#.utf8)
        let run = UInt32.random(in: 0...UInt32.max)
        let prepared = (0..<200_000).map { i -> [UInt8] in
            let headers = RequestSignature.headers(appId: TestServer.appId, appKey: TestServer.appKey, method: "POST",
                                                   pathAndQuery: "/server/v1/channel/grant", body: body, timestamp: now,
                                                   nonce: String(format: "c%08x%09d", run, i))
            var text = "POST /server/v1/channel/grant HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            return Array((text + "\r\n").utf8) + body
        }
        return HTTPLoadClient(port: port, requests: prepared, threads: 2, connectionsPerThread: 8).run(warmup: 0.3, duration: 2)
    }
}
