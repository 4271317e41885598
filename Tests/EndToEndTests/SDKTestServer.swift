import Foundation
import RTCNet
import SRTCProtocol
import SRTCServer

/// A real server in-process on a free loopback port with an in-memory database, for the SDK's
/// end-to-end tests.
final class SDKTestServer: Sendable {
    static let appId = "app_sdk_test"
    static let appKey = "key_sdk_test_0123456789"
    let app: ServerApp

    init(grace: Int = 20, configure: (inout ServerConfig) -> Void = { _ in }) throws {
        var config = ServerConfig()
        config.dataDir = ":memory:"
        config.httpPort = 0
        config.udpPort = 0
        config.appId = Self.appId
        config.appKey = Self.appKey
        config.httpThreads = 1
        config.limits.reconnectGraceSeconds = grace
        configure(&config)
        app = try ServerApp(config: config)
        try app.start()
    }

    /// The URL an app passes to `join(url:token:)`.
    var url: String { "http://127.0.0.1:\(app.httpPort)" }
    var port: UInt16 { app.httpPort }

    /// A join token signed with the test app's key.
    func token(uid: String, channel: String, publish: Bool = true, subscribe: Bool = true, publishData: Bool = true,
               lifetime: Int64 = 3600) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now, exp: now + lifetime, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: publish, subscribe: subscribe, publishData: publishData)),
                                key: Self.appKey)
    }

    /// A signed server-API call; returns the HTTP status.
    @discardableResult
    func call(_ path: String, _ body: [String: Any]) async throws -> Int {
        let data = Array(try JSONSerialization.data(withJSONObject: body))
        let headers = HTTPHeaders(RequestSignature.headers(appId: Self.appId, appKey: Self.appKey, method: "POST", pathAndQuery: path,
                                                          body: data, timestamp: Int64(Date().timeIntervalSince1970)))
        let response = try await HTTPClient().post(url + path, headers: headers, body: data)
        if response.status != 200 { print("server API \(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
        return response.status
    }

    func stop() async { await app.shutdown() }
}
