import Foundation
import RTCNet
import SRTCProtocol

/// A signed server-API call (the four headers of docs/server-api.md) as a customer's backend makes it.
public enum SignedCall {
    /// POSTs `body` as JSON to `base + path`; returns the status and the JSON object answered.
    public static func post(_ base: String, _ path: String, _ body: [String: Any], appId: String, appKey: String,
                            timeout: Duration = .seconds(10)) async throws -> (Int, [String: Any]) {
        let data = Array(try JSONSerialization.data(withJSONObject: body))
        let headers = HTTPHeaders(RequestSignature.headers(appId: appId, appKey: appKey, method: "POST", pathAndQuery: path,
                                                          body: data, timestamp: Int64(Date().timeIntervalSince1970)))
        let response = try await HTTPClient().post(base + path, headers: headers, body: data, timeout: timeout)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, object)
    }
}
