import Foundation
import RTCCrypto
import RTCNet
import SRTCProtocol

/// How the meeting app's demo sign-in answers (`--demo-auth`, `SRTC_DEMO_AUTH`).
public enum DemoAuthMode: String, Sendable, Equatable, CaseIterable {
    /// No demo sign-in route (the default; production).
    case off
    /// Answers clients connecting from a loopback address only (`make serve`).
    case loopback
    /// Answers anyone who reaches the server: anyone can get a member token.
    case on
}

/// `POST /demo/v1/sign-in`: the meeting app's demo sign-in. It gives a member token for a display
/// name, so `/meet/` works with nothing but a browser. It stands in for the customer's backend,
/// which in production checks its own login and calls the signed `/stm/srvapi/v1/member/grant`
/// (docs/server-api.md, "Demo sign-in"). Off unless `--demo-auth` turns it on.
enum DemoSignInRoutes {
    static let path = "/demo/v1/sign-in"
    /// Member tokens of the demo live as long as a meeting's channel token.
    static let lifetimeSeconds: Int64 = 12 * 3600

    struct Body: Decodable {
        var nickname: String
    }

    /// Adds the route when `mode` is not `.off`; tokens are signed for `app()` (the server's own app).
    static func register(in builder: inout APIRouter.Builder, mode: DemoAuthMode, app: @escaping @Sendable () -> App?) {
        guard mode != .off else { return }
        builder.addImmediate("POST", path) { context in signIn(context, mode: mode, app: app()) }
    }

    static func signIn(_ context: RouteContext, mode: DemoAuthMode, app: App?) -> HTTPResponse {
        if mode == .loopback, context.request.remoteAddress?.isLoopback != true {
            return APIRouter.error(.permissionDenied, "the demo sign-in answers loopback clients only (--demo-auth loopback)", now: context.now)
        }
        guard let app else { return APIRouter.error(.internalError, "the server has no app", now: context.now) }
        let body: Body
        switch JSONBody.decode(Body.self, from: context.request.body, now: context.now) {
        case .success(let b): body = b
        case .failure(let e): return e.response
        }
        let nickname = body.nickname.trimmingCharacters(in: .whitespaces)
        guard !nickname.isEmpty, GrantRoutes.isValidNickname(nickname) else {
            return APIRouter.error(.invalidParameter, "nickname must be 1 to 64 characters without control characters", now: context.now)
        }
        // A fresh uid per sign-in: the demo vouches for a display name, never for an identity.
        let uid = "demo_" + SecureRandom.string(count: 12, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
        let claims = GrantRoutes.memberClaims(app: app, uid: uid, nickname: nickname, lifetime: lifetimeSeconds, now: context.now)
        var json = JSONText(capacity: 512)
        json.beginObject()
        json.field("uid", uid)
        json.field("nickname", nickname)
        json.field("token", AccessToken.sign(claims, key: app.appKey))
        json.field("expire_at", claims.exp)
        json.endObject()
        return .json(200, json.bytes)
    }
}
