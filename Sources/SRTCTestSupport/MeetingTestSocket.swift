import Foundation
import MeetingServer
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import Synchronization
import TestWait

extension TestServer {
    /// A server with the meeting backend; `grace` is how long a dropped meeting (or SRTC)
    /// session is kept for a resume.
    public static func withMeetings(grace: Int = 20) throws -> TestServer {
        try TestServer(grace: grace, modules: [MeetingModule.factory])
    }

    /// A member token (`/stm/srvapi/v1/member/grant`'s kind) signed with the test app's key.
    public func memberToken(uid: String, nickname: String? = nil, lifetime: Int64 = 3600, key: String = TestServer.appKey) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now, exp: now + lifetime, jti: UUID().uuidString,
                                            member: MemberGrant(nickname: nickname)), key: key)
    }

    /// The meeting WebSocket.
    public var meetingURL: String { "ws://127.0.0.1:\(app.httpPort)\(MeetingModule.webSocketPath)" }

    /// Cluster nodes with the meeting backend, in this process, named `ids`, on one fresh
    /// PostgreSQL database and one fresh `redis-server` (both started by the test support);
    /// returns them and the Redis URL.
    public static func meetingCluster(_ ids: [String]) async throws -> (nodes: [TestServer], redisURL: String) {
        var shared = ServerConfig()
        try await TestStore.postgres.configure(&shared)
        let databaseURL = shared.cluster.databaseURL
        let redisURL = try await TestRedis.freshURL()
        let nodes = try ids.map { id in
            try TestServer(modules: [MeetingModule.factory]) { $0.cluster.redisURL = redisURL; $0.cluster.databaseURL = databaseURL; $0.cluster.nodeId = id }
        }
        return (nodes, redisURL)
    }

    /// A meeting cluster whose first node (`a`) is a process of its own, to `kill -9`, and whose
    /// others (`ids`) run in this process, on one fresh PostgreSQL database and one fresh
    /// `redis-server`. All idle, a meeting's channel (and its live room) goes to `a`, the
    /// smallest id.
    public static func meetingClusterWithNodeToKill(_ ids: [String] = ["b", "c"]) async throws
        -> (a: TestNodeProcess, nodes: [TestServer], redisURL: String) {
        var shared = ServerConfig()
        try await TestStore.postgres.configure(&shared)
        guard let databaseURL = shared.cluster.databaseURL else { throw TestEnvelopeSocket.Failure(description: "no test database") }
        let redisURL = try await TestRedis.freshURL()
        let a = try await TestNodeProcess(arguments: ["--redis-url", redisURL, "--database-url", databaseURL, "--node-id", "a"])
        let nodes = try ids.map { id in
            try TestServer(modules: [MeetingModule.factory]) { $0.cluster.redisURL = redisURL; $0.cluster.databaseURL = databaseURL; $0.cluster.nodeId = id }
        }
        return (a, nodes, redisURL)
    }
}

/// The meeting WebSocket's protocol-level client: the envelope client IM tests use too, with the
/// meeting's request and event names and error body.
public typealias MeetingTestSocket = TestEnvelopeSocket

extension TestEnvelopeSocket {
    /// Event types received so far, in order.
    public var events: [String] {
        received.compactMap { try? MeetingCodec.head(of: $0) }.filter { $0.id == nil }.compactMap(\.type)
    }

    /// Sends a meeting request; returns the full response text.
    public func call<T: Encodable>(_ type: MeetingRequestType, _ data: T, timeout: Double = 60) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        Self.meetingResult(try await call(type.rawValue, data, timeout: timeout))
    }

    public func call(_ type: MeetingRequestType) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        try await call(type, EmptyPayload())
    }

    /// The response to meeting request `id`.
    public func response(id: Int, timeout: Double = 60) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        Self.meetingResult(try await answer(id: id, timeout: timeout))
    }

    /// Decodes the `data` of a response.
    public func data<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try MeetingCodec.payload(T.self, from: text)
    }

    /// Waits for a meeting event of `type`; returns its text.
    @discardableResult
    public func waitEvent(_ type: MeetingEventType, count: Int = 1, timeout: Double = 60) async throws -> String {
        try await wait(timeout: timeout, "event \(type.rawValue) x\(count)") { texts in
            let matching = texts.filter { (try? MeetingCodec.head(of: $0)).map { $0.id == nil && $0.type == type.rawValue } ?? false }
            return matching.count >= count ? matching[count - 1] : nil
        }
    }

    /// Logs in with a member token.
    public func login(_ token: String) async throws {
        let r = try await call(.login, LoginReq(token: token))
        guard r.ok else { throw Failure(description: "login failed: \(r.text)") }
    }

    private static func meetingResult(_ answer: Answer) -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        let head = try? MeetingCodec.head(of: answer.text)
        return (head?.ok == true, answer.text, head?.error)
    }
}
