/// One client connection carrying requests one at a time; idle between requests it waits in its
/// client's pool. Loop-confined.
// @unchecked Sendable: every `var` is touched only on `loop`'s thread (the pool hands requests over with `loop.execute`).
final class HTTPClientConnection: StreamHandler, @unchecked Sendable {
    typealias Completion = @Sendable (Result<HTTPResponse, NetError>, _ receivedAnything: Bool) -> Void

    // MARK: - State

    let key: String
    let loop: EventLoop
    private weak var pool: HTTPClient?
    private(set) var stream: StreamConnection?
    private var active = false
    private var closed = false
    private var pendingWrite: [UInt8]?
    private var parser = HTTPResponseParser()
    private var completion: Completion?
    private var receivedBytes = false
    private var requestDeadline: UInt64?
    private var closeError: NetError?
    /// Requests completed on this connection (0 before the first).
    private(set) var requestsServed = 0
    private let limits: HTTPResponseParser.Limits
    private let idleTimeout: Duration

    init(key: String, loop: EventLoop, pool: HTTPClient, limits: HTTPResponseParser.Limits, idleTimeout: Duration) {
        self.key = key
        self.loop = loop
        self.pool = pool
        self.limits = limits
        self.idleTimeout = idleTimeout
    }

    var isUsable: Bool { !closed }

    // MARK: - Requests (loop thread)

    /// Sends `bytes` and calls `completion` once with the response or the failure.
    func perform(_ bytes: [UInt8], method: String, deadline: UInt64, completion: @escaping Completion) {
        guard !closed else {
            completion(.failure(closeError ?? .connectionClosed), false)
            return
        }
        self.completion = completion
        requestDeadline = deadline
        parser = HTTPResponseParser(requestMethod: method, limits: limits)
        receivedBytes = false
        if let stream, active {
            stream.deadline = deadline
            stream.write(bytes)
        } else {
            // Still connecting: the connect deadline stays until the stream is active.
            pendingWrite = bytes
        }
    }

    // MARK: - StreamHandler

    func streamActive(_ stream: StreamConnection) {
        self.stream = stream
        active = true
        if let bytes = pendingWrite {
            pendingWrite = nil
            stream.deadline = requestDeadline
            stream.write(bytes)
        }
    }

    func streamReceived(_ stream: StreamConnection) {
        self.stream = stream
        guard completion != nil else {
            // Bytes while idle break HTTP/1.1 framing; this connection cannot be reused.
            stream.close(error: .protocolViolation("unexpected bytes on an idle connection"))
            return
        }
        receivedBytes = true
        do {
            guard let response = try parser.next(from: &stream.inbound) else { return }
            finish(.success(response), reusable: parser.connectionReusable && stream.inbound.isEmpty)
        } catch {
            stream.close(error: .protocolViolation(error.description))
        }
    }

    func streamReadClosed(_ stream: StreamConnection) {
        if completion != nil, let response = parser.finish() {
            finish(.success(response), reusable: false)
        }
        stream.close(error: .connectionClosed)
    }

    func streamDeadlineExpired(_ stream: StreamConnection) {
        stream.close(error: completion != nil ? .timeout : nil)
    }

    func streamClosed(_ stream: StreamConnection, error: NetError?) {
        closed = true
        closeError = error
        self.stream = nil
        pool?.remove(self)
        if let completion {
            self.completion = nil
            completion(.failure(error ?? .connectionClosed), receivedBytes)
        }
    }

    // MARK: - Internals

    private func finish(_ result: Result<HTTPResponse, NetError>, reusable: Bool) {
        guard let completion else { return }
        self.completion = nil
        requestsServed += 1
        if reusable, let stream, let pool, pool.returnToPool(self) {
            stream.deadline = Monotonic.now() &+ Monotonic.nanoseconds(idleTimeout)
        } else {
            stream?.close()
        }
        completion(result, receivedBytes)
    }
}
