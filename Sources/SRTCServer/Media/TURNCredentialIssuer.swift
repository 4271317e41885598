import RTCCrypto
import SRTCProtocol

/// Short-lived TURN credentials in coturn's shared-secret scheme (`use-auth-secret` with
/// `static-auth-secret`, after draft-uberti-behave-turn-rest): the username is
/// `<expiry unix seconds>:<uid>` and the password base64(HMAC-SHA1(secret, username)). coturn
/// recomputes the password from the username and refuses it after the expiry, so the server and
/// coturn share only the secret and nothing is stored per session.
struct TURNCredentialIssuer: Sendable {
    let urls: [String]
    let secret: String
    let ttlSeconds: Int

    /// `nil` unless both URLs and a secret are configured.
    init?(config: ServerConfig) {
        guard !config.turn.urls.isEmpty, let secret = config.turn.secret, !secret.isEmpty else { return nil }
        urls = config.turn.urls
        self.secret = secret
        ttlSeconds = config.turn.credentialTTL
    }

    /// The ICE servers for `uid`'s session, valid for `ttlSeconds` from `now` (Unix seconds).
    func iceServers(uid: String, now: Int64) -> [ICEServer] {
        let username = "\(now.addingReportingOverflow(Int64(ttlSeconds)).partialValue):\(uid)"
        let password = Encoding.base64(Digest.hmacSHA1(key: Array(secret.utf8), message: Array(username.utf8)))
        return [ICEServer(urls: urls, username: username, credential: password)]
    }
}
