import Foundation
import Testing
import RTCNet
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import TestRandom

/// The WHIP and WHEP routes under hostile input (docs/ingress.md): seeded random methods, paths,
/// content types, tokens and bodies (edits of a real offer, random text, fragments). Every answer
/// is a documented status with the API's JSON error body, and the server still takes a good offer.
@Suite(.serialized) struct HTTPMediaRobustnessTests {
    static let documented: Set<Int> = [200, 201, 204, 307, 400, 401, 403, 404, 405, 409, 412, 413, 415, 429]

    @Test func fiveHundredSeededRandomRequestsGetDocumentedAnswers() async throws {
        let server = try TestServer { $0.limits.addressJoinsPerSecond = 0 }
        let client = HTTPClient()
        let token = server.token(uid: "fuzzer", channel: "robust")
        let offer = ClientSDP.offer([.audio(mid: "0"), .video(mid: "1")])
        let player = ClientSDP.offer([.audio(mid: "0", direction: "recvonly"), .video(mid: "1", direction: "recvonly")])
        // A live WHIP session, so PATCH and DELETE sometimes reach a real one.
        let created = try await client.execute(method: "POST", url: server.httpBase + "/whip/v1/robust",
                                               headers: ["Content-Type": "application/sdp", "Authorization": "Bearer " + token], body: Array(offer.utf8))
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let location = created.headers["Location"] ?? "/whip/v1/robust/WHIP_none"

        var random = SeededRandom(seed: 0x5748_4950)
        let paths = ["/whip/v1/robust", location, "/whip/v1/robust/WHIP_nosuch", "/whip/v1/", "/whip/v1/%ZZ", "/whip/v1/a%2Fb",
                     "/whip/v1/" + String(repeating: "x", count: 300), "/whep/v1/robust/fuzzer", "/whep/v1/robust/nobody",
                     "/whep/v1/robust/fuzzer/WHEP_x", "/whip/v1/robust/WHIP_x/extra", "/whep/v1/robust"]
        let methods = ["POST", "PATCH", "DELETE", "OPTIONS", "GET", "PUT"]
        let types = ["application/sdp", "application/trickle-ice-sdpfrag", "application/json", "APPLICATION/SDP; charset=utf-8", "", "\u{7f}"]
        let tokens = ["Bearer " + server.token(uid: "viewer", channel: "robust"),
                      "Bearer " + server.token(uid: "other", channel: "robust", publish: false, subscribe: false),
                      "Bearer " + server.token(uid: "elsewhere", channel: "other"), "Bearer x.y.z", "Basic abc", "Bearer", ""]
        var statuses: [Int: Int] = [:]
        for i in 0 ..< 500 {
            var body: [UInt8]
            switch Int.random(in: 0 ..< 5, using: &random) {
            case 0: body = Array(offer.utf8)
            case 1: body = Array(player.utf8)
            case 2: body = Array("a=ice-ufrag:abcd\r\na=ice-pwd:0123456789012345678901\r\na=candidate:1 1 udp 1 10.0.0.1 9 typ host\r\n".utf8)
            case 3: body = (0 ..< Int.random(in: 0 ... 2000, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            default: body = Array(offer.utf8) + Array(repeating: UInt8(ascii: "a"), count: Int.random(in: 60_000 ... 70_000, using: &random))
            }
            // Edits: truncate or flip a few bytes.
            for _ in 0 ..< Int.random(in: 0 ... 3, using: &random) where !body.isEmpty {
                if Bool.random(using: &random) {
                    body = Array(body.prefix(Int.random(in: 0 ... body.count, using: &random)))
                } else {
                    body[Int.random(in: 0 ..< body.count, using: &random)] = UInt8.random(in: 0 ... 255, using: &random)
                }
            }
            // Mostly the routes' own method, path, type and token, so the bodies reach the parsers.
            let (method, path, type, auth): (String, String, String, String)
            switch Int.random(in: 0 ..< 10, using: &random) {
            case 0 ..< 3: (method, path, type, auth) = ("POST", "/whip/v1/robust", "application/sdp", tokens[0])
            case 3 ..< 5: (method, path, type, auth) = ("POST", "/whep/v1/robust/fuzzer", "application/sdp", tokens[0])
            case 5 ..< 7: (method, path, type, auth) = ("PATCH", location, "application/trickle-ice-sdpfrag", "")
            default:
                (method, path) = (methods.randomElement(using: &random)!, paths.randomElement(using: &random)!)
                (type, auth) = (types.randomElement(using: &random)!, tokens.randomElement(using: &random)!)
            }
            var headers = HTTPHeaders()
            if !type.isEmpty { headers.add(name: "Content-Type", value: type) }
            if !auth.isEmpty { headers.add(name: "Authorization", value: auth) }
            if Bool.random(using: &random) { headers.add(name: "If-Match", value: ["*", "\"x\"", "", "W/\"y\""].randomElement(using: &random)!) }
            let response = try await client.execute(method: method, url: server.httpBase + path, headers: headers, body: body)
            statuses[response.status, default: 0] += 1
            #expect(Self.documented.contains(response.status), "request \(i): \(method) \(path) → \(response.status)")
            if response.status >= 400 {
                let error = try? JSONDecoder().decode(APIErrorBody.self, from: Data(response.body))
                #expect(error.flatMap { APIErrorCode(rawValue: $0.code) }?.httpStatus == response.status,
                        "request \(i): \(method) \(path) → \(response.status) \(String(decoding: response.body.prefix(200), as: UTF8.self))")
            }
        }
        print("WHIP/WHEP random requests by status: \(statuses.sorted { $0.key < $1.key })")
        // Still serving: a good offer is taken.
        let again = try await client.execute(method: "POST", url: server.httpBase + "/whip/v1/robust",
                                             headers: ["Content-Type": "application/sdp", "Authorization": "Bearer " + server.token(uid: "late", channel: "robust")],
                                             body: Array(offer.utf8))
        #expect(again.status == 201)
        await server.stop()
    }
}
