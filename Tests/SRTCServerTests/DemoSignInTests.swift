import Foundation
import Testing
import RTCNet
import SRTCProtocol
@testable import SRTCServer

/// The meeting app's demo sign-in, `POST /demo/v1/sign-in` (docs/server-api.md, "Demo sign-in"):
/// absent by default, loopback clients only with `loopback`, anyone with `on`; member tokens for a
/// display name and a fresh uid, signed with the server's own app; bad names refused.
@Suite struct DemoSignInTests {
    static let now: Int64 = 1_800_000_000
    static let key = "key_test_0123456789"

    func server(_ mode: DemoAuthMode) throws -> ServerApp {
        var config = ServerConfig()
        config.dataDir = ":memory:"
        config.appId = "app_test"
        config.appKey = Self.key
        config.demoAuth = mode
        return try ServerApp(config: config, clock: { DemoSignInTests.now })
    }

    func request(_ body: String, from ip: String = "127.0.0.1") -> HTTPRequest {
        HTTPRequest(method: "POST", target: "/demo/v1/sign-in", body: Array(body.utf8), remoteAddress: SocketAddress(ip: ip, port: 40000))
    }

    struct Answer: Decodable { var uid: String; var nickname: String; var token: String; var expire_at: Int64 }

    func errorCode(_ response: HTTPResponse) -> Int? {
        (try? JSONDecoder().decode(APIErrorBody.self, from: Data(response.body)))?.code
    }

    @Test func offByDefaultThereIsNoRoute() async throws {
        #expect(ServerConfig().demoAuth == .off)
        let response = try await server(.off).router.handle(request(#"{"nickname":"Ada"}"#))
        #expect(response.status == 404)
        #expect(errorCode(response) == APIErrorCode.notFound.rawValue)
    }

    @Test(arguments: [DemoAuthMode.loopback, .on])
    func aNameGetsAMemberTokenOfTheServersApp(_ mode: DemoAuthMode) async throws {
        let app = try server(mode)
        let first = await app.router.handle(request(#"{"nickname":"  Ada Lovelace "}"#))
        #expect(first.status == 200)
        let answer = try JSONDecoder().decode(Answer.self, from: Data(first.body))
        #expect(answer.nickname == "Ada Lovelace")
        #expect(answer.uid.hasPrefix("demo_") && answer.uid.count == 17 && Identifier.isValid(answer.uid))
        #expect(answer.expire_at == Self.now + 12 * 3600)
        let claims = try AccessToken.verify(answer.token, now: Self.now) { $0 == "app_test" ? Self.key : nil }
        #expect(claims.sub == answer.uid)
        #expect(claims.member?.nickname == "Ada Lovelace")
        #expect(claims.grant == nil)
        // The same name again is another member: the demo never vouches for an identity.
        let second = try JSONDecoder().decode(Answer.self, from: Data(await app.router.handle(request(#"{"nickname":"Ada Lovelace"}"#)).body))
        #expect(second.uid != answer.uid)
    }

    @Test(arguments: ["::1", "127.5.6.7"])
    func loopbackModeAnswersLoopbackClients(_ ip: String) async throws {
        let response = try await server(.loopback).router.handle(request(#"{"nickname":"Ada"}"#, from: ip))
        #expect(response.status == 200)
    }

    @Test(arguments: ["192.168.1.20", "10.0.0.1", "2001:db8::1"])
    func loopbackModeRefusesOtherClients(_ ip: String) async throws {
        let response = try await server(.loopback).router.handle(request(#"{"nickname":"Ada"}"#, from: ip))
        #expect(response.status == 403)
        #expect(errorCode(response) == APIErrorCode.permissionDenied.rawValue)
        #expect(try await server(.on).router.handle(request(#"{"nickname":"Ada"}"#, from: ip)).status == 200)
    }

    @Test(arguments: [
        (#"{"nickname":""}"#, APIErrorCode.invalidParameter),
        (#"{"nickname":"   "}"#, .invalidParameter),
        (#"{"nickname":"a\u0007b"}"#, .invalidParameter),
        ("{\"nickname\":\"" + String(repeating: "x", count: 65) + "\"}", .invalidParameter),
        (#"{"name":"Ada"}"#, .malformedBody),
        (#"{"nickname":7}"#, .malformedBody),
        ("", .malformedBody),
        ("not json", .malformedBody),
    ])
    func badBodiesAreRefused(_ body: String, _ code: APIErrorCode) async throws {
        let response = try await server(.on).router.handle(request(body))
        #expect(response.status == 400)
        #expect(errorCode(response) == code.rawValue)
    }

    @Test func theModeComesFromFlagEnvironmentOrFile() throws {
        #expect(try ServerConfig.load(arguments: ["--demo-auth", "loopback"], environment: [:]).demoAuth == .loopback)
        #expect(try ServerConfig.load(arguments: [], environment: ["SRTC_DEMO_AUTH": "on"]).demoAuth == .on)
        #expect(try ServerConfig.load(arguments: ["--demo-auth", "off"], environment: ["SRTC_DEMO_AUTH": "on"]).demoAuth == .off)
        #expect(throws: ConfigError.invalidValue("demo-auth", "yes")) { try ServerConfig.load(arguments: ["--demo-auth", "yes"], environment: [:]) }
    }
}
