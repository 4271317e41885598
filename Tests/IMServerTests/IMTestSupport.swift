import Foundation
import IMServer
import SRTCProtocol
import SRTCServer
import SRTCTestSupport

/// A real server with the IM module on loopback.
func makeIMServer(configure: (inout ServerConfig) -> Void = { _ in }) throws -> TestServer {
    try TestServer(modules: [IMModule.factory], configure: configure)
}

extension TestServer {
    /// An IM token (`/server/v1/im/grant`'s kind) signed with the test app's key.
    func imToken(uid: String, lifetime: Int64 = 3600, key: String = TestServer.appKey) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now, exp: now + lifetime, jti: UUID().uuidString,
                                            im: IMGrant()), key: key)
    }

    var imURL: String { "ws://127.0.0.1:\(app.httpPort)\(IMModule.webSocketPath)" }

    /// A logged-in IM socket (`lastSeq` resumes).
    func imSession(_ uid: String, lastSeq: Int64? = nil) async throws -> (TestEnvelopeSocket, IMLoginResponse) {
        let socket = try await TestEnvelopeSocket(url: imURL)
        let answer = try await socket.call("login", IMLoginRequest(token: imToken(uid: uid), lastSeq: lastSeq))
        return (socket, try answer.data(IMLoginResponse.self))
    }
}

extension TestEnvelopeSocket {
    /// The IM entries received so far, in order.
    var imMessages: [IMMessage] { events("message", as: IMMessage.self) }

    /// Waits until `count` entries have arrived; returns them.
    @discardableResult
    func imMessages(count: Int, timeout: Double = 60) async throws -> [IMMessage] {
        try await wait(timeout: timeout, "\(count) IM entries") { _ in imMessages.count >= count ? imMessages : nil }
    }
}
