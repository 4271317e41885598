import Foundation
import Testing
import RTCCrypto
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport

/// How a client gets in and what it gets for its media path: the token in the WebSocket URL
/// alone, and short-lived TURN credentials in the join response (coturn's shared-secret scheme).
@Suite(.serialized) struct JoinTransportTests {
    @Test func aTokenInTheURLIsEnoughAJoinWithoutATokenFieldIsAdmitted() async throws {
        let server = try TestServer()
        let token = server.token(uid: "carol", channel: "query")
        let client = try await TestSignalClient(url: server.wsURL + "?token=" + token)
        // Regression: this join has no "token" key at all; it was refused with "missing field token".
        client.sendRaw(#"{"id":1,"type":"join","data":{"protocol":1}}"#)
        let response = try await client.response(id: 1)
        guard case .success(.joined(let joined)) = response.result else {
            Issue.record("join refused: \(response)")
            return
        }
        #expect(joined.me.uid == "carol" && joined.channel.channel == "query")
        #expect(joined.iceServers.isEmpty)
        await server.stop()
    }

    @Test func joinResponsesCarryTURNCredentialsCoturnRecomputes() async throws {
        let secret = "turn-shared-secret"
        let urls = ["turn:127.0.0.1:3478?transport=udp", "turn:127.0.0.1:3478?transport=tcp", "turns:turn.example.com:443?transport=tcp"]
        let server = try TestServer { config in
            config.turn.urls = urls
            config.turn.secret = secret
            config.turn.credentialTTL = 600
        }
        let client = try await TestSignalClient(url: server.wsURL)
        let before = Int64(Date().timeIntervalSince1970)
        let joined = try await client.join(token: server.token(uid: "dave", channel: "relay"))
        let after = Int64(Date().timeIntervalSince1970)
        let ice = try #require(joined.iceServers.first)
        #expect(joined.iceServers.count == 1 && ice.urls == urls)
        let username = try #require(ice.username)
        let parts = username.split(separator: ":")
        #expect(parts.count == 2 && parts[1] == "dave")
        let expiry = try #require(Int64(parts[0]))
        #expect(expiry >= before + 600 && expiry <= after + 600)
        // The password is what coturn computes from the username with its static-auth-secret.
        #expect(ice.credential == Encoding.base64(Digest.hmacSHA1(key: Array(secret.utf8), message: Array(username.utf8))))
        // JSON field names as documented.
        let raw = client.rawMessages.first { $0.contains("\"ice_servers\"") }
        #expect(raw?.contains("\"credential\"") == true && raw?.contains("\"username\"") == true)
        await server.stop()
    }

    @Test func turnSettingsComeFromFlagsAndRejectOtherSchemes() throws {
        let config = try ServerConfig.load(arguments: ["--turn-urls", "turn:a:3478, turns:b:443?transport=tcp", "--turn-secret", "s"],
                                           environment: [:])
        #expect(config.turn.urls == ["turn:a:3478", "turns:b:443?transport=tcp"])
        #expect(config.turn.secret == "s" && config.turn.credentialTTL == 21_600)
        #expect(throws: (any Error).self) { try ServerConfig.load(arguments: ["--turn-urls", "http://a"], environment: [:]) }
    }
}
