import RTCCrypto

/// The four-header signature of the server API (docs/server-api.md):
///
///     signature = hex(HMAC-SHA256(app_key, app_id \n nonce \n timestamp \n METHOD \n path_and_query \n hex(SHA-256(body))))
///
/// Shared by the server (verification), the CLI (`srtc sign`) and webhook delivery, so the recipe
/// exists once.
public enum RequestSignature {
    /// Header names, as sent on the wire (lowercase; HTTP header names are case-insensitive).
    public static let appIdHeader = "app_id"
    public static let nonceHeader = "nonce"
    public static let timestampHeader = "timestamp"
    public static let signatureHeader = "signature"

    /// The exact string that is MACed, with `\n` between the six parts and none at the end.
    public static func stringToSign(
        appId: String, nonce: String, timestamp: String, method: String, pathAndQuery: String, body: [UInt8]
    ) -> String {
        let bodyHash = Encoding.hex(Digest.sha256(body))
        return [appId, nonce, timestamp, method.uppercased(), pathAndQuery, bodyHash].joined(separator: "\n")
    }

    /// Lowercase hex HMAC-SHA256 of `stringToSign` keyed with `appKey`.
    public static func sign(
        appKey: String, appId: String, nonce: String, timestamp: String, method: String, pathAndQuery: String, body: [UInt8]
    ) -> String {
        let message = stringToSign(appId: appId, nonce: nonce, timestamp: timestamp, method: method, pathAndQuery: pathAndQuery, body: body)
        return Encoding.hex(Digest.hmacSHA256(key: Array(appKey.utf8), message: Array(message.utf8)))
    }

    /// The four headers for a request, with a fresh random nonce unless one is given.
    /// - Parameters:
    ///   - timestamp: Unix seconds; pass the current time.
    public static func headers(
        appId: String, appKey: String, method: String, pathAndQuery: String, body: [UInt8],
        timestamp: Int64, nonce: String = SecureRandom.string(count: 16)
    ) -> [(String, String)] {
        let ts = String(timestamp)
        let signature = sign(appKey: appKey, appId: appId, nonce: nonce, timestamp: ts, method: method, pathAndQuery: pathAndQuery, body: body)
        return [(appIdHeader, appId), (nonceHeader, nonce), (timestampHeader, ts), (signatureHeader, signature)]
    }
}
