import Foundation
import MeetingServer
import RTCNet
import SMeetingProtocol
import SRTCProtocol
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
}

/// A protocol-level meeting WebSocket client: numbered requests, recorded events.
public final class MeetingTestSocket: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    public let socket: WebSocket
    private let inbox = Mutex<[String]>([])
    private let nextId = Mutex(1)

    public init(url: String) async throws {
        socket = try await WebSocketClient.connect(url: url, timeout: hangTimeout)
        socket.onMessage { [weak self] message in
            if case .text(let text) = message { self?.inbox.withLock { $0.append(text) } }
        }
    }

    /// Every message received so far.
    public var received: [String] { inbox.withLock { $0 } }

    /// Event types received so far, in order.
    public var events: [String] {
        received.compactMap { try? MeetingCodec.head(of: $0) }.filter { $0.id == nil }.compactMap(\.type)
    }

    /// Sends a raw text and returns the response with `id` (nil for no id).
    public func send(raw text: String) { socket.send(text: text) }

    /// Sends a request; returns the full response text.
    public func call<T: Encodable>(_ type: MeetingRequestType, _ data: T, timeout: Double = 60) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        let id = nextId.withLock { n -> Int in defer { n += 1 }; return n }
        socket.send(text: MeetingCodec.request(id: id, type: type, data))
        return try await response(id: id, timeout: timeout)
    }

    public func call(_ type: MeetingRequestType) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        try await call(type, EmptyPayload())
    }

    public func response(id: Int, timeout: Double = 60) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        let text = try await waitFor(timeout: timeout, "response \(id); received \(received)") {
            received.first { (try? MeetingCodec.head(of: $0))?.id == id }
        }
        let head = try MeetingCodec.head(of: text)
        return (head.ok == true, text, head.error)
    }

    /// Decodes the `data` of a response.
    public func data<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try MeetingCodec.payload(T.self, from: text)
    }

    /// Waits for an event of `type`; returns its text.
    @discardableResult
    public func waitEvent(_ type: MeetingEventType, count: Int = 1, timeout: Double = 60) async throws -> String {
        try await waitFor(timeout: timeout, "event \(type.rawValue) x\(count); received \(events)") {
            let matching = received.filter { (try? MeetingCodec.head(of: $0)).map { $0.id == nil && $0.type == type.rawValue } ?? false }
            return matching.count >= count ? matching[count - 1] : nil
        }
    }

    /// Logs in with a member token.
    public func login(_ token: String) async throws {
        let r = try await call(.login, LoginReq(token: token))
        guard r.ok else { throw Failure(description: "login failed: \(r.text)") }
    }

    public func close() { socket.close() }
}
