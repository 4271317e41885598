import Foundation
import RTCNet
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Testing

/// Issue #8: numbers an outsider chooses (header timestamps, token times) at the ends of Int64,
/// through the real entry points. Each gets its documented error, or is served, and the server
/// keeps serving.
@Suite struct OutsideNumbersTests {
    /// A signed grant request whose `timestamp` header is `timestamp` (the signature is computed
    /// over it, so only the window check can refuse it).
    func grant(_ server: TestServer, timestamp: String) async throws -> (Int, [String: Any]) {
        let body = Array(#"{"channel":"c1","uid":"u1"}"#.utf8)
        let path = "/server/v1/channel/grant"
        let nonce = UUID().uuidString
        let signature = RequestSignature.sign(appKey: TestServer.appKey, appId: TestServer.appId, nonce: nonce, timestamp: timestamp,
                                              method: "POST", pathAndQuery: path, body: body)
        let headers = HTTPHeaders([("app_id", TestServer.appId), ("nonce", nonce), ("timestamp", timestamp), ("signature", signature)])
        let response = try await HTTPClient().post(server.httpBase + path, headers: headers, body: body)
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    @Test(arguments: ["-9223372036854775808", "9223372036854775807", "-9223372036854775809", "99999999999999999999"])
    func extremeTimestampsAreRefusedWith40103(_ timestamp: String) async throws {
        let server = try TestServer()
        let (status, body) = try await grant(server, timestamp: timestamp)
        #expect(status == 401)
        #expect(body["code"] as? Int == APIErrorCode.timestampOutOfWindow.rawValue)
        // Still serving, signed calls included.
        let (okStatus, okBody) = try await server.call("/server/v1/channel/grant", ["channel": "c1", "uid": "u2"])
        #expect(okStatus == 200 && okBody["token"] is String)
        await server.stop()
    }

    /// A channel token with the given times, validly signed with the app's key (a backend that
    /// mints its own tokens from the documented recipe may write anything here).
    static func token(uid: String, nbf: Int64 = 0, exp: Int64) -> String {
        AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: uid, iat: 0, nbf: nbf, exp: exp, jti: UUID().uuidString,
                                     grant: ChannelGrant(channel: "far")), key: TestServer.appKey)
    }

    @Test(arguments: [Int64.max, Int64.max - 4, 10_000_000_000_000_000, 9_223_372_036_854_775])
    func farFutureExpiryJoinsByMessageAndByQueryAndTheServerKeepsServing(_ exp: Int64) async throws {
        let server = try TestServer()
        let byMessage = try await TestSignalClient(url: server.wsURL)
        let joined = try await byMessage.join(token: Self.token(uid: "m", exp: exp))
        #expect(joined.me.uid == "m")
        let token = Self.token(uid: "q", exp: exp)
        let byQuery = try await TestSignalClient(url: server.wsURL + "?token=" + token)
        _ = try await byQuery.join(token: token)
        #expect(try await byMessage.request(.ping).isSuccess)
        #expect(try await byQuery.request(.ping).isSuccess)
        let other = try await TestSignalClient(url: server.wsURL)
        _ = try await other.join(token: server.token(uid: "o", channel: "far"))
        await server.stop()
    }

    @Test func expiryAndNotBeforeAtTheFarEndsGetTheirCodes() async throws {
        let server = try TestServer()
        let cases: [(String, APIErrorCode)] = [
            (Self.token(uid: "a", exp: Int64.min), .tokenExpired),
            (Self.token(uid: "b", nbf: Int64.max, exp: Int64.max), .tokenNotYetValid),
            (Self.token(uid: "c", nbf: Int64.max - 2, exp: Int64.max), .tokenNotYetValid),
        ]
        for (token, code) in cases {
            let c = try await TestSignalClient(url: server.wsURL)
            #expect(try await c.request(.join(JoinRequest(token: token))).errorCode == code)
        }
        // nbf at the far past is simply valid.
        let c = try await TestSignalClient(url: server.wsURL)
        _ = try await c.join(token: Self.token(uid: "d", nbf: Int64.min, exp: Int64.max))
        #expect(try await c.request(.ping).isSuccess)
        await server.stop()
    }
}
