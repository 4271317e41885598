import RTCCrypto
import RTCNet
import SRTCProtocol

/// `POST /server/v1/channel/grant` and `POST /stm/srvapi/v1/member/grant`: join tokens signed
/// with the calling app's key (docs/server-api.md).
enum GrantRoutes {
    struct Permissions: Decodable {
        var publish: Bool?
        var subscribe: Bool?
        var publish_data: Bool?
    }

    struct ChannelGrantRequest: Decodable {
        var channel: String
        var uid: String
        var expire_seconds: Int64?
        var permissions: Permissions?
    }

    struct MemberGrantRequest: Decodable {
        var uid: String
        var nickname: String?
        var expire_seconds: Int64?
    }

    /// `{"expire_at": …, "token": …}`, written directly (this is the hot route).
    static func grantResponse(token: String, expireAt: Int64) -> HTTPResponse {
        var json = JSONText(capacity: token.utf8.count + 40)
        json.beginObject()
        json.field("expire_at", expireAt)
        json.field("token", token)
        json.endObject()
        return .json(200, json.bytes)
    }

    static func register(in builder: inout APIRouter.Builder) {
        builder.addImmediate("POST", "/server/v1/channel/grant", channelGrant)
        builder.addImmediate("POST", "/stm/srvapi/v1/member/grant", memberGrant)
    }

    static func channelGrant(_ context: RouteContext) -> HTTPResponse {
        guard let app = context.app else { return APIRouter.error(.internalError, "unsigned grant", now: context.now) }
        let body: ChannelGrantRequest
        switch JSONBody.decode(ChannelGrantRequest.self, from: context.request.body, now: context.now) {
        case .success(let b): body = b
        case .failure(let e): return e.response
        }
        guard Identifier.isValid(body.channel) else { return invalid("channel", context.now) }
        guard Identifier.isValid(body.uid) else { return invalid("uid", context.now) }
        let lifetime: Int64
        switch validLifetime(body.expire_seconds, now: context.now) {
        case .success(let l): lifetime = l
        case .failure(let e): return e.response
        }
        let grant = ChannelGrant(channel: body.channel, publish: body.permissions?.publish ?? true,
                                 subscribe: body.permissions?.subscribe ?? true, publishData: body.permissions?.publish_data ?? true)
        let claims = TokenClaims(iss: app.appId, sub: body.uid, iat: context.now, nbf: context.now, exp: context.now + lifetime,
                                 jti: SecureRandom.string(count: 16), grant: grant)
        return grantResponse(token: AccessToken.sign(claims, key: app.appKey), expireAt: claims.exp)
    }

    static func memberGrant(_ context: RouteContext) -> HTTPResponse {
        guard let app = context.app else { return APIRouter.error(.internalError, "unsigned grant", now: context.now) }
        let body: MemberGrantRequest
        switch JSONBody.decode(MemberGrantRequest.self, from: context.request.body, now: context.now) {
        case .success(let b): body = b
        case .failure(let e): return e.response
        }
        guard Identifier.isValid(body.uid) else { return invalid("uid", context.now) }
        if let nickname = body.nickname, !isValidNickname(nickname) {
            return APIRouter.error(.invalidParameter, nicknameRule, now: context.now)
        }
        let lifetime: Int64
        switch validLifetime(body.expire_seconds, now: context.now) {
        case .success(let l): lifetime = l
        case .failure(let e): return e.response
        }
        let claims = memberClaims(app: app, uid: body.uid, nickname: body.nickname, lifetime: lifetime, now: context.now)
        return grantResponse(token: AccessToken.sign(claims, key: app.appKey), expireAt: claims.exp)
    }

    /// The claims of a member token (`sub` = uid, `member.nickname`) issued by `app`.
    static func memberClaims(app: App, uid: String, nickname: String?, lifetime: Int64, now: Int64) -> TokenClaims {
        TokenClaims(iss: app.appId, sub: uid, iat: now, nbf: now, exp: now + lifetime,
                    jti: SecureRandom.string(count: 16), member: MemberGrant(nickname: nickname))
    }

    static let nicknameRule = "nickname must be at most 64 characters without control characters"

    /// A member's nickname: at most 64 characters, no control characters.
    static func isValidNickname(_ nickname: String) -> Bool {
        nickname.count <= 64 && !nickname.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    }

    private static func invalid(_ field: String, _ now: Int64) -> HTTPResponse {
        APIRouter.error(.invalidParameter, "\(field) must be 1 to \(Identifier.maxLength) characters of A-Z a-z 0-9 _ - . @ = +", now: now)
    }

    private static func validLifetime(_ requested: Int64?, now: Int64) -> Result<Int64, HTTPResponseError> {
        let lifetime = requested ?? TokenLifetime.defaultSeconds
        guard (TokenLifetime.minimumSeconds...TokenLifetime.maximumSeconds).contains(lifetime) else {
            return .failure(HTTPResponseError(APIRouter.error(
                .invalidParameter, "expire_seconds must be between \(TokenLifetime.minimumSeconds) and \(TokenLifetime.maximumSeconds)", now: now)))
        }
        return .success(lifetime)
    }
}
