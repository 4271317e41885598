import RTCCrypto
import RTCNet
import SRTCProtocol

/// Why a signed request was refused: a code of the API table and a message safe to return
/// (it never contains a key or the expected signature).
public struct AuthFailure: Error, Sendable, Equatable {
    public let code: APIErrorCode
    public let message: String
}

/// Checks the four-header signature of docs/server-api.md on every server-API request.
///
/// Order matters: cheap header checks first, the nonce recorded only after the signature is
/// verified, so unsigned junk cannot fill the replay cache.
public struct RequestAuthenticator: Sendable {
    public let apps: AppStore
    public let nonces: NonceCache
    public let windowSeconds: Int64

    public init(apps: AppStore, nonces: NonceCache, windowSeconds: Int64 = 300) {
        self.apps = apps
        self.nonces = nonces
        self.windowSeconds = windowSeconds
    }

    /// The app that signed `request`, or why it is refused.
    /// - Parameter now: server time in Unix seconds.
    public func authenticate(_ request: HTTPRequest, now: Int64) -> Result<App, AuthFailure> {
        func fail(_ code: APIErrorCode, _ message: String) -> Result<App, AuthFailure> {
            .failure(AuthFailure(code: code, message: message))
        }
        let headers = request.headers
        for name in [RequestSignature.appIdHeader, RequestSignature.nonceHeader, RequestSignature.timestampHeader, RequestSignature.signatureHeader] {
            guard let value = headers[name], !value.isEmpty else { return fail(.missingAuthHeader, "missing header \(name)") }
        }
        let appId = headers[RequestSignature.appIdHeader]!
        let nonce = headers[RequestSignature.nonceHeader]!
        let timestampText = headers[RequestSignature.timestampHeader]!
        let signature = headers[RequestSignature.signatureHeader]!
        guard nonce.utf8.count <= 128 else { return fail(.missingAuthHeader, "nonce must be 1 to 128 characters") }
        guard let app = apps.app(id: appId) else { return fail(.unknownApp, "unknown app_id") }
        guard let timestamp = Int64(timestampText) else {
            return fail(.timestampOutOfWindow, "timestamp must be Unix seconds")
        }
        guard abs(timestamp - now) <= windowSeconds else {
            return fail(.timestampOutOfWindow, "timestamp \(timestamp) is more than \(windowSeconds) s from server time \(now)")
        }
        let expected = RequestSignature.sign(appKey: app.appKey, appId: appId, nonce: nonce, timestamp: timestampText,
                                             method: request.method, pathAndQuery: request.target, body: request.body)
        guard ConstantTime.equals(expected.utf8, signature.lowercased().utf8) else {
            return fail(.badSignature, "signature does not match; see docs/server-api.md for the string to sign")
        }
        switch nonces.insert(appId: appId, nonce: nonce, expiresAt: timestamp + windowSeconds, now: now) {
        case .fresh: return .success(app)
        case .replayed: return fail(.nonceReplayed, "nonce already used within the last \(windowSeconds) s")
        case .full: return fail(.rateLimited, "too many signed requests in the window; retry later")
        }
    }
}
