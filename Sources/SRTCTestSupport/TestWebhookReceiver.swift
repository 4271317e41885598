import Foundation
import RTCNet
import SRTCProtocol
import Synchronization
import TestWait

/// An HTTP server on a free loopback port that records webhook deliveries, in the order they
/// arrive, after checking their signatures like a customer's backend would (docs/server-api.md,
/// "Webhooks"). Answers 503 to the first `failingFirst` deliveries, and to all while `setFailing(true)`
/// (the backend is down), to exercise retries.
public final class TestWebhookReceiver: Sendable {
    /// One delivery as it arrived.
    public struct Delivery: Sendable {
        /// Top-level fields and `data.<field>` of the body, as strings.
        public let json: [String: String]
        public let sequence: Int
        public let signatureValid: Bool
        /// The body as sent.
        public let body: [UInt8]

        /// The event's `data` object (nested objects kept).
        public var data: [String: Any] {
            let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
            return object?["data"] as? [String: Any] ?? [:]
        }
        public var event: String? { json["event"] }
        public var eventId: String { json["event_id"] ?? "" }
    }

    public let server: HTTPServer
    private let received = Mutex<[Delivery]>([])
    private let appKey: Mutex<String>
    private let failFirst: Mutex<Int>
    private let failing = Mutex(false)

    /// - Parameters:
    ///   - appKey: the key signatures are checked with.
    ///   - failingFirst: answer this many deliveries 503 before accepting.
    public init(appKey: String = TestServer.appKey, failingFirst: Int = 0) throws {
        self.appKey = Mutex(appKey)
        failFirst = Mutex(failingFirst)
        let box = Mutex<TestWebhookReceiver?>(nil)
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

    private func receive(_ request: HTTPRequest) -> HTTPResponse {
        let h = request.headers
        let expected = RequestSignature.sign(appKey: appKey.withLock { $0 }, appId: h["app_id"] ?? "", nonce: h["nonce"] ?? "",
                                             timestamp: h["timestamp"] ?? "", method: request.method, pathAndQuery: request.target, body: request.body)
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
        var flat: [String: String] = [:]
        for (k, v) in object { flat[k] = "\(v)" }
        if let data = object["data"] as? [String: Any] { for (k, v) in data { flat["data.\(k)"] = "\(v)" } }
        let shouldFail = failFirst.withLock { n -> Bool in defer { n -= 1 }; return n > 0 } || failing.withLock { $0 }
        if shouldFail { return .text(503, "try later") }
        received.withLock {
            $0.append(Delivery(json: flat, sequence: object["sequence"] as? Int ?? -1, signatureValid: expected == h["signature"],
                               body: request.body))
        }
        return .json(200, Array("{}".utf8))
    }

    /// Every delivery so far, in arrival order.
    public var deliveries: [Delivery] { received.withLock { $0 } }

    /// The first delivery of `event` (for user `uid` if given), waiting for it.
    public func waitFor(_ event: String, uid: String? = nil, timeout: Double = 60) async throws -> Delivery {
        try await TestWait.waitFor(timeout: timeout, "webhook \(event); got \(deliveries.map { $0.event ?? "?" })") {
            deliveries.first { $0.event == event && (uid == nil || $0.json["data.uid"] == uid) }
        }
    }

    /// The deliveries of `event`, once there are at least `count` of them.
    public func waitFor(_ count: Int, of event: String, timeout: Double = 60) async throws -> [Delivery] {
        try await TestWait.waitFor(timeout: timeout, "\(count) × webhook \(event); got \(deliveries.map { $0.event ?? "?" })") {
            let found = deliveries.filter { $0.event == event }
            return found.count >= count ? found : nil
        }
    }

    public func shutdown() async { await server.shutdown() }
}
