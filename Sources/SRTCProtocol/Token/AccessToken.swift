import Foundation
import RTCCrypto

/// Errors of token verification; each maps to one API error code.
public enum TokenError: Error, Sendable, Equatable {
    /// Not three base64url parts, bad JSON, or a header other than HS256/JWT.
    case malformed
    /// `iss` names no app this verifier knows.
    case unknownIssuer
    /// The HMAC does not match.
    case badSignature
    /// `exp` has passed.
    case expired
    /// `nbf` is in the future.
    case notYetValid

    /// The API error code a server answers with.
    public var code: APIErrorCode {
        switch self {
        case .malformed, .unknownIssuer, .badSignature: return .invalidToken
        case .expired: return .tokenExpired
        case .notYetValid: return .tokenNotYetValid
        }
    }
}

/// Compact JWTs signed with HS256 (RFC 7519, RFC 7515 §3.1), keyed with the app's `app_key`.
/// Any node verifies them from the key alone, without a database round trip.
public enum AccessToken {
    /// The fixed JOSE header; `alg` is checked on verify so a token cannot downgrade to `none`.
    static let header = #"{"alg":"HS256","typ":"JWT"}"#

    /// Signs `claims` with `key` and returns `header.payload.signature`.
    public static func sign(_ claims: TokenClaims, key: String) -> String {
        let payload = claims.jsonBytes
        let signingInput = Encoding.base64URL(Array(header.utf8)) + "." + Encoding.base64URL(payload)
        let mac = Digest.hmacSHA256(key: Array(key.utf8), message: Array(signingInput.utf8))
        return signingInput + "." + Encoding.base64URL(mac)
    }

    /// Decodes the claims without checking the signature or times (for `srtc token decode`).
    public static func decodeUnverified(_ token: String) throws(TokenError) -> TokenClaims {
        try parts(of: token).claims
    }

    /// Verifies signature, issuer and validity window, and returns the claims.
    /// - Parameters:
    ///   - keyForIssuer: the `app_key` of an `app_id`, or `nil` when unknown.
    ///   - now: Unix seconds.
    ///   - leeway: seconds of clock skew tolerated on `exp` and `nbf`.
    public static func verify(
        _ token: String, now: Int64, leeway: Int64 = 5, keyForIssuer: (String) -> String?
    ) throws(TokenError) -> TokenClaims {
        let p = try parts(of: token)
        guard let key = keyForIssuer(p.claims.iss) else { throw .unknownIssuer }
        let expected = Digest.hmacSHA256(key: Array(key.utf8), message: Array(p.signingInput.utf8))
        guard ConstantTime.equals(expected, p.signature) else { throw .badSignature }
        // Saturating: `exp` and `nbf` are whatever the signer wrote, up to Int64's bounds.
        guard now < p.claims.exp.addingSaturating(leeway) else { throw .expired }
        guard now.addingSaturating(leeway) >= p.claims.nbf else { throw .notYetValid }
        return p.claims
    }

    private static func parts(of token: String) throws(TokenError) -> (signingInput: String, claims: TokenClaims, signature: [UInt8]) {
        guard token.utf8.count <= 8192 else { throw .malformed }
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3,
              let headerBytes = Encoding.fromBase64URL(String(pieces[0])),
              let payloadBytes = Encoding.fromBase64URL(String(pieces[1])),
              let signature = Encoding.fromBase64URL(String(pieces[2])) else { throw .malformed }
        struct Header: Decodable { var alg: String; var typ: String? }
        guard let h = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)), h.alg == "HS256" else { throw .malformed }
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(payloadBytes)) else { throw .malformed }
        return (pieces[0] + "." + pieces[1], claims, signature)
    }
}

extension TokenClaims {
    /// The claims as compact JSON with sorted keys, written without `JSONEncoder` (grants are a
    /// hot path). `AccessTokenTests` checks it decodes back to the same claims.
    var jsonBytes: [UInt8] {
        var json = JSONText()
        json.beginObject()
        json.field("exp", exp)
        if let grant {
            json.beginObject("grant")
            json.field("channel", grant.channel)
            if grant.hidden { json.field("hidden", true) }
            json.field("publish", grant.publish)
            json.field("publish_data", grant.publishData)
            if grant.serverPublisher { json.field("server_publisher", true) }
            json.field("subscribe", grant.subscribe)
            json.endObject()
        }
        json.field("iat", iat)
        if let im {
            json.beginObject("im")
            json.field("nickname", im.nickname)
            json.endObject()
        }
        json.field("iss", iss)
        json.field("jti", jti)
        if let member {
            json.beginObject("member")
            json.field("nickname", member.nickname)
            json.endObject()
        }
        json.field("nbf", nbf)
        if speedTest != nil {
            json.beginObject("speed_test")
            json.endObject()
        }
        json.field("sub", sub)
        json.endObject()
        return json.bytes
    }
}
