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

    /// The app that signed `request`, or why it is refused, when that is known without waiting;
    /// `nil` when the nonce store needs a round trip (nothing is recorded then: call
    /// `authenticate` off the I/O thread).
    /// - Parameter now: server time in Unix seconds.
    public func authenticateImmediately(_ request: HTTPRequest, now: Int64) -> Result<App, AuthFailure>? {
        switch verify(request, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let (app, signed)):
            let expiresAt = signed.nonceExpiry(windowSeconds: windowSeconds)
            return nonces.recordImmediately(appId: signed.appId, nonce: signed.nonce, expiresAt: expiresAt, now: now)
                .map { outcome(app, $0) }
        }
    }

    /// The app that signed `request`, or why it is refused, awaiting the nonce store.
    public func authenticate(_ request: HTTPRequest, now: Int64) async -> Result<App, AuthFailure> {
        switch verify(request, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let (app, signed)):
            let expiresAt = signed.nonceExpiry(windowSeconds: windowSeconds)
            return outcome(app, await nonces.record(appId: signed.appId, nonce: signed.nonce, expiresAt: expiresAt, now: now))
        }
    }

    // MARK: - Internals

    /// Everything but the nonce: headers, app, timestamp window, signature.
    private func verify(_ request: HTTPRequest, now: Int64) -> Result<(App, SignedRequestHeaders), AuthFailure> {
        func fail(_ code: APIErrorCode, _ message: String) -> Result<(App, SignedRequestHeaders), AuthFailure> {
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
        return .success((app, signed))
    }

    private func outcome(_ app: App, _ outcome: NonceCache.Outcome) -> Result<App, AuthFailure> {
        switch outcome {
        case .fresh: return .success(app)
        case .replayed: return .failure(AuthFailure(code: .nonceReplayed, message: "nonce already used within the last \(windowSeconds) s"))
        case .full: return .failure(AuthFailure(code: .rateLimited, message: "too many signed requests in the window; retry later"))
        }
    }
}
