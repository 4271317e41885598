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
    public let nonces: any NonceStore
    public let windowSeconds: Int64

    public init(apps: AppStore, nonces: any NonceStore, windowSeconds: Int64 = 300) {
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
        let signed: SignedRequestHeaders
        switch SignedRequestHeaders.parse({ request.headers[$0] }) {
        case .success(let h): signed = h
        case .failure(.missingHeader(let name)): return fail(.missingAuthHeader, "missing header \(name)")
        case .failure(.nonceTooLong): return fail(.missingAuthHeader, "nonce must be 1 to \(SignedRequestHeaders.maxNonceBytes) characters")
        case .failure(.timestampNotANumber): return fail(.timestampOutOfWindow, "timestamp must be Unix seconds")
        }
        guard let app = apps.app(id: signed.appId) else { return fail(.unknownApp, "unknown app_id") }
        guard signed.isFresh(now: now, windowSeconds: windowSeconds) else {
            return fail(.timestampOutOfWindow, "timestamp \(signed.timestamp) is more than \(windowSeconds) s from server time \(now)")
        }
        guard signed.verifies(appKey: app.appKey, method: request.method, pathAndQuery: request.target, body: request.body) else {
            return fail(.badSignature, "signature does not match; see docs/server-api.md for the string to sign")
        }
        let appId = signed.appId, nonce = signed.nonce
        let expiresAt = signed.nonceExpiry(windowSeconds: windowSeconds)
        switch nonces.insert(appId: appId, nonce: nonce, expiresAt: expiresAt, now: now) {
        case .fresh: return .success(app)
        case .replayed: return fail(.nonceReplayed, "nonce already used within the last \(windowSeconds) s")
        case .full: return fail(.rateLimited, "too many signed requests in the window; retry later")
        }
    }
}
