import Foundation
import RTCNet
import SRTCProtocol
import Synchronization
import TestWait

/// A customer's backend for tests: an HTTP server that records webhook deliveries after checking
/// their signatures as docs/server-api.md tells a backend to.
public final class WebhookReceiver: Sendable {
    /// One delivery: the body's fields flattened (`event`, `data.uid`...), its sequence number and
    /// whether its signature verified with the app's key.
    public struct Delivery: Sendable {
        public let json: [String: String]
        public let sequence: Int
        public let signatureValid: Bool
        public var event: String { json["event"] ?? "" }
        public var eventId: String { json["event_id"] ?? "" }
    }

    public let server: HTTPServer
    private let appKey: Mutex<String>
    private let received = Mutex<[Delivery]>([])
    private let failFirst = Mutex<Int>(0)
    private let failing = Mutex(false)

    /// - Parameters:
    ///   - appKey: the key signatures are checked with.
    ///   - failingFirst: answer this many deliveries 503 before accepting.
    public init(appKey: String = TestServer.appKey, failingFirst: Int = 0) throws {
        self.appKey = Mutex(appKey)
        failFirst.withLock { $0 = failingFirst }
        let box = Mutex<WebhookReceiver?>(nil)
        server = HTTPServer(configuration: .init(port: 0, loopCount: 1)) { request in
            box.withLock { $0 }?.receive(request) ?? .text(500, "not ready")
        }
        box.withLock { $0 = self }
        try server.start()
    }

    public var url: String { "http://127.0.0.1:\(server.port)/hooks/srtc?v=1" }

    /// Checks signatures with `key` from now on (an app the server created at its first start).
    public func setAppKey(_ key: String) { appKey.withLock { $0 = key } }

    /// While `true`, every delivery is answered 503 (the backend is down) and not recorded.
    public func setFailing(_ value: Bool) { failing.withLock { $0 = value } }

    func receive(_ request: HTTPRequest) -> HTTPResponse {
        let h = request.headers
        let expected = RequestSignature.sign(appKey: appKey.withLock { $0 }, appId: h["app_id"] ?? "", nonce: h["nonce"] ?? "",
                                             timestamp: h["timestamp"] ?? "", method: request.method, pathAndQuery: request.target, body: request.body)
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
        var flat: [String: String] = [:]
        for (k, v) in object { flat[k] = "\(v)" }
        if let data = object["data"] as? [String: Any] { for (k, v) in data { flat["data.\(k)"] = "\(v)" } }
        let shouldFail = failFirst.withLock { n -> Bool in defer { n -= 1 }; return n > 0 } || failing.withLock { $0 }
        if shouldFail { return .text(503, "try later") }
        received.withLock { $0.append(Delivery(json: flat, sequence: object["sequence"] as? Int ?? -1, signatureValid: expected == h["signature"])) }
        return .json(200, Array("{}".utf8))
    }

    /// Every accepted delivery, in arrival order.
    public var deliveries: [Delivery] { received.withLock { $0 } }

    /// Waits for a delivery of `event` (for `uid`, when given).
    public func waitFor(_ event: String, uid: String? = nil, timeout: Double = 60) async throws -> Delivery {
        try await TestWait.waitFor(timeout: timeout, "webhook \(event); got \(deliveries.map { $0.json["event"] ?? "?" })") {
            deliveries.first { $0.json["event"] == event && (uid == nil || $0.json["data.uid"] == uid) }
        }
    }

    public func stop() async { await server.shutdown() }
}
