import Foundation
import RTCNet
import Synchronization

/// One Janus session over its HTTP transport (janus.transport.http, the "Janus API"): requests
/// carry a transaction id; synchronous answers come back in the HTTP response, asynchronous
/// plugin events (with the same transaction) through the session's long poll
/// (`GET /janus/<session>`), which one task keeps open for the session's life.
final class JanusSession: Sendable {
    /// A decoded Janus JSON message (`janus`, `transaction`, `sender`, `plugindata`, `jsep`, …).
    // @unchecked Sendable: `json` is an immutable JSONSerialization result (Foundation value containers), never mutated after decoding.
    struct Message: @unchecked Sendable {
        let json: [String: Any]

        var kind: String { json["janus"] as? String ?? "" }
        var transaction: String? { json["transaction"] as? String }
        var sender: UInt64? { (json["sender"] as? NSNumber)?.uint64Value }
        /// The plugin's `data` object.
        var data: [String: Any] { (json["plugindata"] as? [String: Any])?["data"] as? [String: Any] ?? [:] }
        var jsep: (type: String, sdp: String)? {
            guard let jsep = json["jsep"] as? [String: Any], let type = jsep["type"] as? String, let sdp = jsep["sdp"] as? String else { return nil }
            return (type, sdp)
        }
        /// A core error (`janus: error`) or a plugin error (`error_code` in the data), as text.
        var error: String? {
            if kind == "error" {
                let error = json["error"] as? [String: Any]
                return "\(error?["code"] ?? "?"): \(error?["reason"] ?? "unknown")"
            }
            if let code = data["error_code"] { return "\(code): \(data["error"] ?? "unknown")" }
            return nil
        }
    }

    private struct State {
        var waiters: [String: CheckedContinuation<Message, any Error>] = [:]
        var closed = false
    }

    let base: String
    let id: UInt64
    private let client: HTTPClient
    private let state = Mutex(State())
    private let poller = Mutex<Task<Void, Never>?>(nil)

    private init(base: String, id: UInt64, client: HTTPClient) {
        self.base = base
        self.id = id
        self.client = client
    }

    /// Creates a session at `base` (`http://host:port/janus`) and starts its long poll.
    static func create(base: String) async throws -> JanusSession {
        let client = HTTPClient(configuration: .init(timeout: .seconds(60), maxIdleConnectionsPerHost: 32))
        let created = try await post(client, base, ["janus": "create", "transaction": transactionID()])
        guard created.kind == "success", let id = ((created.json["data"] as? [String: Any])?["id"] as? NSNumber)?.uint64Value else {
            throw LoadError.target("janus create: \(created.error ?? created.kind)")
        }
        let session = JanusSession(base: base, id: id, client: client)
        session.poller.withLock { $0 = Task { await session.poll() } }
        return session
    }

    // MARK: - Requests

    /// Attaches a handle to the VideoRoom plugin.
    func attach() async throws -> UInt64 {
        let reply = try await Self.post(client, "\(base)/\(id)", ["janus": "attach", "plugin": "janus.plugin.videoroom",
                                                                  "transaction": Self.transactionID()])
        guard reply.kind == "success", let handle = ((reply.json["data"] as? [String: Any])?["id"] as? NSNumber)?.uint64Value else {
            throw LoadError.target("janus attach: \(reply.error ?? reply.kind)")
        }
        return handle
    }

    /// Sends a plugin message and returns its answer: the synchronous reply, or the event that
    /// carries the same transaction when Janus acknowledged first.
    /// - Throws: `LoadError.target` with Janus's error, or on timeout.
    func message(handle: UInt64, body: [String: Any], jsep: (type: String, sdp: String)? = nil,
                 timeout: Duration = .seconds(20)) async throws -> Message {
        let transaction = Self.transactionID()
        var request: [String: Any] = ["janus": "message", "transaction": transaction, "body": body]
        if let jsep { request["jsep"] = ["type": jsep.type, "sdp": jsep.sdp] }
        let what = "\(body["request"] ?? "message")"
        let payload = try JSONSerialization.data(withJSONObject: request)
        let client = self.client, url = "\(base)/\(id)/\(handle)"
        let answer: Message = try await withCheckedThrowingContinuation { continuation in
            // Registered before sending: the event may come back before the HTTP reply.
            state.withLock { $0.waiters[transaction] = continuation }
            Task {
                do {
                    let reply = try await Self.post(client, url, payload)
                    if reply.kind != "ack" { self.resolve(transaction, reply) }
                } catch {
                    self.fail(transaction, error)
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.fail(transaction, LoadError.target("janus: no answer to \(what) within \(timeout)"))
            }
        }
        if let error = answer.error { throw LoadError.target("janus \(what): \(error)") }
        return answer
    }

    /// Tells Janus this side has no more candidates (the offer or answer held them all).
    func trickleCompleted(handle: UInt64) async {
        _ = try? await Self.post(client, "\(base)/\(id)/\(handle)",
                                 ["janus": "trickle", "candidate": ["completed": true], "transaction": Self.transactionID()])
    }

    /// Detaches a handle (hanging up its PeerConnection).
    func detach(handle: UInt64) async {
        _ = try? await Self.post(client, "\(base)/\(id)/\(handle)", ["janus": "detach", "transaction": Self.transactionID()])
    }

    /// Destroys the session and stops the long poll.
    func destroy() async {
        state.withLock { $0.closed = true }
        _ = try? await Self.post(client, "\(base)/\(id)", ["janus": "destroy", "transaction": Self.transactionID()])
        poller.withLock { $0 }?.cancel()
    }

    // MARK: - Long poll

    private func poll() async {
        var lastKeepAlive = Date()
        while !state.withLock({ $0.closed }) && !Task.isCancelled {
            // Keep-alives: Janus drops sessions idle for its session timeout (60 s by default).
            if Date().timeIntervalSince(lastKeepAlive) > 20 {
                lastKeepAlive = Date()
                _ = try? await Self.post(client, "\(base)/\(id)", ["janus": "keepalive", "transaction": Self.transactionID()])
            }
            guard let response = try? await client.get("\(base)/\(id)?maxev=20", timeout: .seconds(45)) else {
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let decoded = try? JSONSerialization.jsonObject(with: Data(response.body))
            let events = (decoded as? [[String: Any]]) ?? (decoded as? [String: Any]).map { [$0] } ?? []
            for event in events {
                let message = Message(json: event)
                if let transaction = message.transaction, message.kind == "event" || message.kind == "error" {
                    resolve(transaction, message)
                }
            }
        }
    }

    private func resolve(_ transaction: String, _ message: Message) {
        state.withLock { $0.waiters.removeValue(forKey: transaction) }?.resume(returning: message)
    }

    private func fail(_ transaction: String, _ error: any Error) {
        state.withLock { $0.waiters.removeValue(forKey: transaction) }?.resume(throwing: error)
    }

    private static func post(_ client: HTTPClient, _ url: String, _ body: [String: Any]) async throws -> Message {
        try await post(client, url, try JSONSerialization.data(withJSONObject: body))
    }

    private static func post(_ client: HTTPClient, _ url: String, _ data: Data) async throws -> Message {
        let response = try await client.post(url, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(data))
        guard let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
            throw LoadError.target("janus answered HTTP \(response.status) with no JSON object")
        }
        return Message(json: json)
    }

    private static func transactionID() -> String {
        String(UInt64.random(in: 1 ... .max), radix: 36)
    }
}
