import Foundation
import RTCNet
import SRTCProtocol

/// Makes signed calls to the server API (docs/server-api.md) over RTCNet's HTTP client
/// (http and https).
struct SignedClient {
    let baseURL: String
    let appId: String
    let appKey: String
    /// How an `https://` server is verified (`--ca-file`, else the system store).
    var tls: TLSConfiguration = .clientDefault

    func call(method: String, path: String, body: [UInt8]) async throws(CLIError) -> HTTPResponse {
        var headers = HTTPHeaders(RequestSignature.headers(appId: appId, appKey: appKey, method: method, pathAndQuery: path,
                                                          body: body, timestamp: Int64(Date().timeIntervalSince1970)))
        headers.add(name: "Content-Type", value: "application/json")
        let url = (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + path
        do {
            return try await HTTPClient(configuration: .init(timeout: .seconds(15), tls: tls)).execute(method: method, url: url, headers: headers, body: body)
        } catch {
            throw .failed("request to \(url) failed: \(error)")
        }
    }

    /// Asks a grant route (`/server/v1/channel/grant`, `/server/v1/speedtest/grant`, ...) for a token.
    func grantToken(path: String, body: [String: Any]) async throws(CLIError) -> String {
        let json = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        let response = try await call(method: "POST", path: path, body: Array(json))
        struct Grant: Decodable { var token: String }
        guard response.status == 200, let grant = try? JSONDecoder().decode(Grant.self, from: Data(response.body)) else {
            throw .failed("grant failed (\(response.status)): \(String(decoding: response.body, as: UTF8.self))")
        }
        return grant.token
    }
}
