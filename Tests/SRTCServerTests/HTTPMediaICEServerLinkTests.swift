import Foundation
import Testing
import RTCCrypto
import RTCNet
@testable import SRTCServer
import SRTCTestSupport

/// RFC 9725 §4.6 (and the WHEP draft, which takes it over): a WHIP or WHEP `201` lists the
/// server's ICE servers in `Link` headers, `rel="ice-server"`, with the TURN credentials of the
/// session's uid (coturn's shared-secret scheme, as a join gets them: docs/ingress.md, WHIP table);
/// none without TURN. The CORS headers let a page read them.
@Suite(.serialized) struct HTTPMediaICEServerLinkTests {
    static let secret = "turn-shared-secret"
    static let urls = ["turn:127.0.0.1:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"]

    /// A WHIP `POST` of an audio and video offer to `channel` with `uid`'s token.
    static func publish(_ server: TestServer, channel: String, uid: String) async throws -> HTTPResponse {
        let offer = ClientSDP.offer([.audio(mid: "0"), .video(mid: "1")])
        return try await HTTPClient().execute(method: "POST", url: server.httpBase + "/whip/v1/" + channel,
                                              headers: ["Content-Type": "application/sdp", "Authorization": "Bearer " + server.token(uid: uid, channel: channel)],
                                              body: Array(offer.utf8))
    }

    /// One `Link` value's URL and parameters.
    static func parse(_ link: String) -> (url: String, parameters: [String: String])? {
        let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, first.hasPrefix("<"), first.hasSuffix(">") else { return nil }
        var parameters: [String: String] = [:]
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return nil }
            parameters[String(pair[0])] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return (String(first.dropFirst().dropLast()), parameters)
    }

    /// Checks the `Link` headers of `response` name every TURN URL with `uid`'s credentials.
    static func expectLinks(_ response: HTTPResponse, uid: String, _ what: String) throws {
        let links = response.headers.values("Link").compactMap(parse)
        #expect(links.map(\.url) == urls, "\(what): \(response.headers.values("Link"))")
        for link in links {
            #expect(link.parameters["rel"] == "ice-server" && link.parameters["credential-type"] == "password", "\(what): \(link)")
            let username = try #require(link.parameters["username"])
            #expect(username.split(separator: ":").last.map(String.init) == uid, "\(what): \(username)")
            // The password coturn computes from the username with its static-auth-secret.
            #expect(link.parameters["credential"] == Encoding.base64(Digest.hmacSHA1(key: Array(secret.utf8), message: Array(username.utf8))),
                    "\(what): \(link)")
        }
        #expect(response.headers["Access-Control-Expose-Headers"]?.contains("Link") == true)
    }

    @Test func whipAndWHEPAnswersListTheTURNServersInLinkHeaders() async throws {
        let server = try TestServer { config in
            config.turn.urls = Self.urls
            config.turn.secret = Self.secret
            config.turn.credentialTTL = 600
        }
        let client = HTTPClient()
        let published = try await Self.publish(server, channel: "links", uid: "obs")
        #expect(published.status == 201, "\(String(decoding: published.body, as: UTF8.self))")
        try Self.expectLinks(published, uid: "obs", "WHIP")

        let player = ClientSDP.offer([.audio(mid: "0", direction: "recvonly"), .video(mid: "1", direction: "recvonly")])
        let played = try await client.execute(method: "POST", url: server.httpBase + "/whep/v1/links/obs",
                                              headers: ["Content-Type": "application/sdp", "Authorization": "Bearer " + server.token(uid: "player", channel: "links")],
                                              body: Array(player.utf8))
        #expect(played.status == 201, "\(String(decoding: played.body, as: UTF8.self))")
        try Self.expectLinks(played, uid: "player", "WHEP")
        await server.stop()
    }

    @Test func withoutTURNThereIsNoLinkHeader() async throws {
        let server = try TestServer()
        let published = try await Self.publish(server, channel: "nolinks", uid: "obs")
        #expect(published.status == 201 && published.headers.values("Link").isEmpty, "\(published.headers.values("Link"))")
        await server.stop()
    }
}
