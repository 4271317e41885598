#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Processes
import RTCNet
import Synchronization

/// HTTP server throughput and latency: the server runs in-process on a free loopback port with a
/// trivial handler; a closed-loop keep-alive load client (several connections driven by poll(2)
/// on two threads) measures requests/s and latency percentiles. When `wrk` is installed, the same
/// server is also measured by wrk, a load generator nobody here wrote.
func runHTTPBenchmarks() {
    print("== HTTP server (\(ProcessInfo.processInfo.activeProcessorCount) cores, server loops: 2)")
    for path in [HTTPBenchPath.immediate, .task] {
        let server = HTTPServer(configuration: .init(loopCount: 2, idleTimeout: .seconds(30)), delegate: HTTPBenchDelegate())
        do { try server.start() } catch {
            print("  cannot start the server: \(error)")
            return
        }
        let port = server.port
        let result = HTTPLoadClient(port: port, path: path.rawValue, threads: 2, connectionsPerThread: 8).run(warmup: 0.5, duration: 3)
        print(String(format: "  %-30@ %9.0f req/s   p50 %6.3f ms   p99 %6.3f ms   max %7.3f ms   (%d conns, ours)",
                     path.label as NSString, result.requestsPerSecond, result.p50 * 1000, result.p99 * 1000, result.max * 1000, 16))
        if let wrk = runWrk(port: port, path: path.rawValue) {
            print("  \(String(repeating: " ", count: 30)) \(wrk)   (wrk -t1 -c16)")
        }
        blockingShutdown(server)
    }
}

private enum HTTPBenchPath: String {
    case immediate = "/immediate"
    case task = "/task"

    var label: String { self == .immediate ? "sync fast path (I/O thread)" : "async path (Task per request)" }
}

/// Answers `/immediate` on the I/O thread and everything else through a Task, with the same small
/// JSON body a signed API success returns.
private struct HTTPBenchDelegate: HTTPServerDelegate {
    static let body = Array(#"{"code":0,"message":"ok","data":{"channel":"bench","uid":"u1"}}"#.utf8)

    func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        request.path == "/immediate" ? .json(200, Self.body) : nil
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        .json(200, Self.body)
    }
}

private func blockingShutdown(_ server: HTTPServer) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await server.shutdown(gracePeriod: .seconds(1))
        done.signal()
    }
    done.wait()
}

/// Runs wrk against the server for 3 s and returns its throughput and latency line.
private func runWrk(port: UInt16, path: String) -> String? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else { return nil }
    guard let (_, output) = try? ChildProcess.run(["/usr/bin/wrk", "-t1", "-c16", "-d3s", "--latency", "http://127.0.0.1:\(port)\(path)"])
    else { return nil }
    func field(_ prefix: String) -> String? {
        output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(prefix) }?
            .split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
    }
    guard let rps = field("Requests/sec:"), let p50 = field("50%"), let p99 = field("99%") else { return nil }
    return "\(rps.padding(toLength: 9, withPad: " ", startingAt: 0)) req/s   p50 \(p50)   p99 \(p99)"
}

/// A closed-loop keep-alive load generator: each connection sends one request, waits for the
/// whole response, records the latency and sends the next.
final class HTTPLoadClient: @unchecked Sendable {
    struct Result {
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
        var max: Double
    }

    let port: UInt16
    /// Requests sent in turn; thread t sends entries t, t + threads, ... so no two sends repeat one
    /// (signed requests carry single-use nonces). One entry is repeated for a fixed request.
    let requests: [[UInt8]]
    let threads: Int
    let connectionsPerThread: Int
    var request: [UInt8] { requests[0] }

    convenience init(port: UInt16, path: String, threads: Int, connectionsPerThread: Int) {
        self.init(port: port, requests: [Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: srtc-bench\r\n\r\n".utf8)],
                  threads: threads, connectionsPerThread: connectionsPerThread)
    }

    /// - Parameter requests: complete HTTP/1.1 requests whose responses all have the same length.
    init(port: UInt16, requests: [[UInt8]], threads: Int, connectionsPerThread: Int) {
        precondition(!requests.isEmpty)
        self.port = port
        self.requests = requests
        self.threads = threads
        self.connectionsPerThread = connectionsPerThread
    }

    func run(warmup: Double, duration: Double) -> Result {
        guard let responseLength = probeResponseLength() else { return Result(requestsPerSecond: 0, p50: 0, p99: 0, max: 0) }
        let start = Monotonic.now()
        let measureFrom = start + UInt64(warmup * 1e9)
        let stopAt = measureFrom + UInt64(duration * 1e9)
        let group = DispatchGroup()
        let collected = Mutex<[UInt64]>([])
        for thread in 0..<threads {
            group.enter()
            Thread.detachNewThread { [self] in
                let mine = self.drive(thread: thread, responseLength: responseLength, measureFrom: measureFrom, stopAt: stopAt)
                collected.withLock { $0.append(contentsOf: mine) }
                group.leave()
            }
        }
        group.wait()
        let latencies = collected.withLock { $0 }.sorted()
        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e9
        }
        return Result(requestsPerSecond: Double(latencies.count) / duration, p50: percentile(0.5), p99: percentile(0.99), max: percentile(1))
    }

    /// One request on a blocking socket to learn the (fixed) response size.
    private func probeResponseLength() -> Int? {
        guard let fd = connectSocket() else { return nil }
        defer { close(fd) }
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var parser = HTTPResponseParser()
        var buffer = ByteBuffer()
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            total += n
            buffer.append(contentsOf: chunk[0..<n])
            if (try? parser.next(from: &buffer)) != nil { return total - buffer.readableBytes }
        }
    }

    private func connectSocket() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard let address = SocketAddress(ip: "127.0.0.1", port: port),
              address.withSockAddr({ connect(fd, $0, $1) }) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// The per-thread loop: non-blocking sockets multiplexed with poll(2).
    private func drive(thread: Int, responseLength: Int, measureFrom: UInt64, stopAt: UInt64) -> [UInt64] {
        var fds: [pollfd] = []
        var sentAt: [UInt64] = []
        var pending: [Int] = []
        for _ in 0..<connectionsPerThread {
            guard let fd = connectSocket() else { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            sentAt.append(0)
            pending.append(0)
        }
        var latencies: [UInt64] = []
        latencies.reserveCapacity(200_000)
        var scratch = [UInt8](repeating: 0, count: 65536)
        // Entry 0 was spent by the probe when the list holds distinct requests.
        var next = requests.count > 1 ? thread + threads : 0
        func fire(_ i: Int) {
            sentAt[i] = Monotonic.now()
            pending[i] = responseLength
            _ = requests[next % requests.count].withUnsafeBytes { send(fds[i].fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if requests.count > 1 { next += threads }
        }
        for i in fds.indices { fire(i) }
        while Monotonic.now() < stopAt {
            let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 100) }
            if n <= 0 { continue }
            for i in fds.indices where fds[i].revents != 0 {
                let got = scratch.withUnsafeMutableBytes { recv(fds[i].fd, $0.baseAddress, $0.count, 0) }
                if got <= 0 {
                    if got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { fds[i].events = 0 }
                    continue
                }
                pending[i] -= got
                if pending[i] <= 0 {
                    let now = Monotonic.now()
                    if sentAt[i] >= measureFrom && now < stopAt { latencies.append(now - sentAt[i]) }
                    fire(i)
                }
            }
        }
        for p in fds { close(p.fd) }
        return latencies
    }
}
