import Foundation
import RTCCrypto
import SMeetingProtocol
import SRTCProtocol
import SRTCServer

/// Signs the SRTC channel tokens a meeting hands its members (on entry, on admission from the
/// waiting room, on a move to or from a sub-meeting) with the app's key, which never leaves
/// the server.
struct ChannelGrantSigner: Sendable {
    let apps: AppStore
    /// Lifetime of the tokens. The SRTC server ends a session when its token expires, so this is
    /// long: a meeting may last hours.
    static let lifetimeSeconds: Int64 = 12 * 3600

    /// A token for `uid` to join `channel` of `appId`.
    func grant(appId: String, uid: String, channel: String) throws(MeetingErrorBody) -> RTCGrant {
        guard let app = apps.app(id: appId) else { throw MeetingErrorBody(.internalError, "unknown app") }
        let now = Int64(Date().timeIntervalSince1970)
        let claims = TokenClaims(iss: appId, sub: uid, iat: now, nbf: now, exp: now + Self.lifetimeSeconds,
                                 jti: SecureRandom.string(count: 16), grant: ChannelGrant(channel: channel))
        return RTCGrant(channel: channel, token: AccessToken.sign(claims, key: app.appKey), expireAt: claims.exp)
    }
}
