import RTCCrypto
import RTCNet
import SRTCProtocol

/// `POST /server/v1/channel/grant`, `POST /stm/srvapi/v1/member/grant` and
/// `POST /server/v1/speedtest/grant`: tokens signed with the calling app's key
/// (docs/server-api.md); `userGrant` also serves the IM module's grant.
public enum GrantRoutes {
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

    struct UserGrantRequest: Decodable {
        var uid: String
        var nickname: String?
        var expire_seconds: Int64?
    }

    /// Speed-test tokens are short-lived: a test lasts seconds.
    static let speedTestLifetime: (default: Int64, range: ClosedRange<Int64>) = (300, 10...3600)

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
        builder.addImmediate("POST", "/server/v1/speedtest/grant", speedTestGrant)
    }

    /// `POST /server/v1/speedtest/grant {uid, expire_seconds?}`: a token the speed test presents
    /// to the media port (docs/speed-test.md).
    static func speedTestGrant(_ context: RouteContext) -> HTTPResponse {
        userGrant(context, lifetime: speedTestLifetime) { claims, _ in claims.speedTest = SpeedTestGrant() }
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
        userGrant(context) { claims, nickname in claims.member = MemberGrant(nickname: nickname) }
    }

    /// A token for one uid of the signing app (`{uid, nickname?, expire_seconds?}` → `{expire_at,
    /// token}`), its grant set by `grant`: the member, speed-test and IM grant routes.
    /// - Parameter lifetime: default and accepted range of `expire_seconds`.
    public static func userGrant(_ context: RouteContext,
                                 lifetime: (default: Int64, range: ClosedRange<Int64>) = (TokenLifetime.defaultSeconds, TokenLifetime.minimumSeconds...TokenLifetime.maximumSeconds),
                                 grant: (inout TokenClaims, _ nickname: String?) -> Void) -> HTTPResponse {
        guard let app = context.app else { return APIRouter.error(.internalError, "unsigned grant", now: context.now) }
        let body: UserGrantRequest
        switch JSONBody.decode(UserGrantRequest.self, from: context.request.body, now: context.now) {
        case .success(let b): body = b
        case .failure(let e): return e.response
        }
        guard Identifier.isValid(body.uid) else { return invalid("uid", context.now) }
        if let nickname = body.nickname, !isValidNickname(nickname) {
            return APIRouter.error(.invalidParameter, nicknameRule, now: context.now)
        }
        let seconds = body.expire_seconds ?? lifetime.default
        guard lifetime.range.contains(seconds) else {
            return APIRouter.error(.invalidParameter, "expire_seconds must be between \(lifetime.range.lowerBound) and \(lifetime.range.upperBound)",
                                   now: context.now)
        }
        var claims = TokenClaims(iss: app.appId, sub: body.uid, iat: context.now, nbf: context.now, exp: context.now + seconds,
                                 jti: SecureRandom.string(count: 16))
        grant(&claims, body.nickname)
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
