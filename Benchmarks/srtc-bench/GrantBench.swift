import Foundation
import RTCNet
import SRTCProtocol
import SRTCServer
import RTCCrypto

/// Signed `POST /server/v1/channel/grant` throughput and latency through the whole server
/// (HTTP parse, signature and nonce check, JSON, token signing) over loopback with keep-alive,
/// next to `GET /healthz` on the same server. Each request carries its own nonce, prepared
/// before the run so the client spends no time signing.
func runGrantBenchmarks() {
    var config = ServerConfig()
    config.dataDir = ":memory:"
    config.httpPort = 0
    config.http.threads = 2
    config.appId = "app_bench"
    config.appKey = "bench_key_0123456789abcdef"
    let app: ServerApp
    do {
        app = try ServerApp(config: config)
        try app.start()
    } catch {
        print("== signed grants: cannot start the server: \(error)")
        return
    }
    let port = app.httpPort
    let count = 300_000
    let now = Int64(Date().timeIntervalSince1970)
    let body = Array(#"{"channel":"bench-room","uid":"user-0001"}"#.utf8)
    let prepared = (0..<count).map { i -> [UInt8] in
        let headers = RequestSignature.headers(appId: config.appId!, appKey: config.appKey!, method: "POST",
                                               pathAndQuery: "/server/v1/channel/grant", body: body, timestamp: now,
                                               nonce: String(format: "n%015d", i))
        var text = "POST /server/v1/channel/grant HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8) + body
    }
    print("== signed grants (server: 2 event loops; load client in the same process: 2 threads x 8 keep-alive connections)")
    for (label, requests) in [("POST /server/v1/channel/grant", prepared),
                              ("GET /healthz", [Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)])] {
        let result = HTTPLoadClient(port: port, requests: requests, threads: 2, connectionsPerThread: 8).run(warmup: 0.5, duration: 3)
        print(String(format: "  %-32@ %9.0f req/s   p50 %6.3f ms   p99 %6.3f ms   max %7.3f ms",
                     label as NSString, result.requestsPerSecond, result.p50 * 1000, result.p99 * 1000, result.max * 1000))
    }
    let refused = app.metrics.authFailureCount(cause: "nonce_replayed") + app.metrics.authFailureCount(cause: "bad_signature")
    print("  signature failures during the run: \(refused) (must be 0)")
    let done = DispatchSemaphore(value: 0)
    Task {
        await app.shutdown()
        done.signal()
    }
    done.wait()
}

/// Where a grant's time goes: each step of the handler alone, per call.
func runGrantPartsBenchmarks() {
    func measure(_ label: String, _ iterations: Int = 20_000, _ body: () -> Void) {
        for _ in 0..<1000 { body() }
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { body() }
        let ns = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
        print(String(format: "  %-44@ %8.2f µs", label as NSString, ns / 1000))
    }
    print("== grant handler steps (one core)")
    let body = Array(#"{"channel":"bench-room","uid":"user-0001"}"#.utf8)
    measure("RequestSignature.sign (SHA-256 + HMAC)") {
        _ = RequestSignature.sign(appKey: "k", appId: "a", nonce: "n", timestamp: "1", method: "POST", pathAndQuery: "/server/v1/channel/grant", body: body)
    }
    let key = Array("bench_key_0123456789abcdef".utf8), message = Array(repeating: UInt8(7), count: 180)
    measure("Digest.hmacSHA256 (180 bytes)") { _ = Digest.hmacSHA256(key: key, message: message) }
    measure("Digest.sha256 (41 bytes)") { _ = Digest.sha256(body) }
    let digest = Digest.sha256(body)
    measure("Encoding.hex (32 bytes)") { _ = Encoding.hex(digest) }
    let claims = TokenClaims(iss: "app", sub: "user-0001", iat: 1, nbf: 1, exp: 3601, jti: "0123456789abcdef", grant: ChannelGrant(channel: "bench-room"))
    measure("AccessToken.sign (JSON + HMAC)") { _ = AccessToken.sign(claims, key: "bench_key") }
    struct Req: Decodable { var channel: String; var uid: String }
    measure("JSONDecoder of the request body") { _ = try? JSONDecoder().decode(Req.self, from: Data(body)) }
    measure("SecureRandom.string(16)") { _ = SecureRandom.string(count: 16) }
}
