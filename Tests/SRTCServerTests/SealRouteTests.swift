import Foundation
import RTCNet
import SRTCProtocol
@testable import SRTCServer
import Testing

/// `POST /server/v1/seal` through the router: signed like every server API call, its answer a
/// sealed string that the user's key (and only it) opens, its errors the documented ones.
@Suite struct SealRouteTests {
    static let now: Int64 = 1_800_000_000
    static let appId = "app_test", appKey = "key_test_0123456789"
    let server: ServerApp

    init() throws {
        var config = ServerConfig()
        config.dataDir = ":memory:"
        config.appId = Self.appId
        config.appKey = Self.appKey
        server = try ServerApp(config: config, clock: { SealRouteTests.now })
    }

    func seal(_ body: String, key: String = appKey) async -> HTTPResponse {
        var headers = HTTPHeaders()
        for (k, v) in RequestSignature.headers(appId: Self.appId, appKey: key, method: "POST", pathAndQuery: "/server/v1/seal",
                                               body: Array(body.utf8), timestamp: Self.now, nonce: UUID().uuidString) {
            headers.add(name: k, value: v)
        }
        return await server.router.handle(HTTPRequest(method: "POST", target: "/server/v1/seal", headers: headers, body: Array(body.utf8)))
    }

    func errorCode(_ response: HTTPResponse) throws -> Int {
        try JSONDecoder().decode(APIErrorBody.self, from: Data(response.body)).code
    }

    @Test func theAnswerOpensWithTheUsersKeyOnly() async throws {
        let response = await seal(#"{"uid":"alice","value":"the door code is 4711 ✓"}"#)
        #expect(response.status == 200)
        struct Answer: Decodable { var sealed: String }
        let sealed = try JSONDecoder().decode(Answer.self, from: Data(response.body)).sealed
        #expect(sealed.hasPrefix("srtc1.app_test.YWxpY2U."))
        let parsed = try #require(SealedString.parse(sealed))
        #expect(parsed.open(key: SealKey.derive(appKey: Self.appKey, appId: Self.appId, uid: "alice")) == "the door code is 4711 ✓")
        #expect(parsed.open(key: SealKey.derive(appKey: Self.appKey, appId: Self.appId, uid: "bob")) == nil)
        // The answer never carries the value in clear.
        #expect(!String(decoding: response.body, as: UTF8.self).contains("4711"))
    }

    @Test func theLargestValueIsSealedAndOneByteMoreIsTooLarge() async throws {
        let largest = String(repeating: "a", count: SealedString.maxPlaintextBytes)
        #expect(await seal(#"{"uid":"alice","value":"\#(largest)"}"#).status == 200)
        let tooLarge = await seal(#"{"uid":"alice","value":"\#(largest)b"}"#)
        #expect(tooLarge.status == 413)
        #expect(try errorCode(tooLarge) == APIErrorCode.payloadTooLarge.rawValue)
    }

    @Test(arguments: [
        (#"{"uid":"","value":"x"}"#, APIErrorCode.invalidParameter),
        (#"{"uid":"has space","value":"x"}"#, .invalidParameter),
        (#"{"uid":"\#(String(repeating: "u", count: 65))","value":"x"}"#, .invalidParameter),
        (#"{"uid":"alice"}"#, .malformedBody),
        (#"{"value":"x"}"#, .malformedBody),
        (#"{"uid":"alice","value":7}"#, .malformedBody),
        (#"not json"#, .malformedBody),
        ("", .malformedBody),
    ])
    func badBodiesGetTheDocumentedErrors(body: String, code: APIErrorCode) async throws {
        let response = await seal(body)
        #expect(response.status == code.httpStatus)
        #expect(try errorCode(response) == code.rawValue)
    }

    @Test func anUnsignedOrWronglySignedCallIsRefused() async throws {
        let wrong = await seal(#"{"uid":"alice","value":"x"}"#, key: "not-the-key")
        #expect(wrong.status == 401)
        #expect(try errorCode(wrong) == APIErrorCode.badSignature.rawValue)
        let unsigned = await server.router.handle(HTTPRequest(method: "POST", target: "/server/v1/seal", headers: HTTPHeaders(),
                                                              body: Array(#"{"uid":"alice","value":"x"}"#.utf8)))
        #expect(unsigned.status == 401)
        #expect(try errorCode(unsigned) == APIErrorCode.missingAuthHeader.rawValue)
    }
}
