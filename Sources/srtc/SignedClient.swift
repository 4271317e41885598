import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SRTCProtocol

/// Makes signed calls to the server API (docs/server-api.md).
struct SignedClient {
    let baseURL: String
    let appId: String
    let appKey: String

    struct Answer {
        let status: Int
        let body: [UInt8]
    }

    func call(method: String, path: String, body: [UInt8]) async throws(CLIError) -> Answer {
        guard let url = URL(string: baseURL.trimmingCharacters(in: ["/"]) + path) else { throw .usage("invalid --url \(baseURL)") }
        var request = URLRequest(url: url, timeoutInterval: 15)
        request.httpMethod = method
        request.httpBody = body.isEmpty ? nil : Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in RequestSignature.headers(appId: appId, appKey: appKey, method: method, pathAndQuery: path,
                                                      body: body, timestamp: Int64(Date().timeIntervalSince1970)) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: Array(data))
        } catch {
            throw .failed("request to \(url) failed: \(error.localizedDescription)")
        }
    }
}
