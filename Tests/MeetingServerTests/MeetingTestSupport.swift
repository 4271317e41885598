import Foundation
import MeetingServer
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Synchronization
import TestWait

/// A real server with the meeting module on loopback.
func makeMeetingServer() throws -> TestServer {
    try TestServer(modules: [MeetingModule.factory])
}

extension TestServer {
    /// A member token (`/stm/srvapi/v1/member/grant`'s kind) signed with the test app's key.
    func memberToken(uid: String, nickname: String? = nil, lifetime: Int64 = 3600, key: String = TestServer.appKey) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now, exp: now + lifetime, jti: UUID().uuidString,
                                            member: MemberGrant(nickname: nickname)), key: key)
    }

    var meetingURL: String { "ws://127.0.0.1:\(app.httpPort)\(MeetingModule.webSocketPath)" }
}

/// A protocol-level meeting WebSocket client: numbered requests, recorded events.
final class MeetingTestSocket: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let socket: WebSocket
    private let inbox = Mutex<[String]>([])
    private let nextId = Mutex(1)

    init(url: String) async throws {
        socket = try await WebSocketClient.connect(url: url, timeout: hangTimeout)
        socket.onMessage { [weak self] message in
            if case .text(let text) = message { self?.inbox.withLock { $0.append(text) } }
        }
    }

    /// Every message received so far.
    var received: [String] { inbox.withLock { $0 } }

    /// Event types received so far, in order.
    var events: [String] {
        received.compactMap { try? MeetingCodec.head(of: $0) }.filter { $0.id == nil }.compactMap(\.type)
    }

    /// Sends a raw text and returns the response with `id` (nil for no id).
    func send(raw text: String) { socket.send(text: text) }

    /// Sends a request; returns the full response text.
    func call<T: Encodable>(_ type: MeetingRequestType, _ data: T, timeout: Double = 60) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        let id = nextId.withLock { n -> Int in defer { n += 1 }; return n }
        socket.send(text: MeetingCodec.request(id: id, type: type, data))
        return try await response(id: id, timeout: timeout)
    }

    func call(_ type: MeetingRequestType) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        try await call(type, EmptyPayload())
    }

    func response(id: Int, timeout: Double = 60) async throws -> (ok: Bool, text: String, error: MeetingErrorBody?) {
        let text = try await waitFor("response \(id); received \(received)", timeout: .seconds(timeout)) {
            received.first { (try? MeetingCodec.head(of: $0))?.id == id }
        }
        let head = try MeetingCodec.head(of: text)
        return (head.ok == true, text, head.error)
    }

    /// Decodes the `data` of a response.
    func data<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try MeetingCodec.payload(T.self, from: text)
    }

    /// Waits for an event of `type`; returns its text.
    @discardableResult
    func waitEvent(_ type: MeetingEventType, count: Int = 1, timeout: Double = 60) async throws -> String {
        try await waitFor("event \(type.rawValue) x\(count); received \(events)", timeout: .seconds(timeout)) {
            let matching = received.filter { (try? MeetingCodec.head(of: $0)).map { $0.id == nil && $0.type == type.rawValue } ?? false }
            return matching.count >= count ? matching[count - 1] : nil
        }
    }

    /// Logs in with a member token.
    func login(_ token: String) async throws {
        let r = try await call(.login, LoginReq(token: token))
        guard r.ok else { throw Failure(description: "login failed: \(r.text)") }
    }

    func close() { socket.close() }
}
