import RTCCrypto

/// The four signature headers of a server-API request, parsed and checked without the app store
/// or the nonce cache (docs/server-api.md, "Signing requests"). The server adds the app lookup and
/// replay check around it; keeping the parsing here lets a fuzzer reach every path.
public struct SignedRequestHeaders: Sendable, Equatable {
    /// Why the headers alone are refused, in the order they are checked.
    public enum Refusal: Error, Sendable, Equatable {
        /// A header is absent or empty (`40101`).
        case missingHeader(String)
        /// The nonce is longer than `maxNonceBytes` (`40101`).
        case nonceTooLong
        /// `timestamp` is not a decimal integer (`40103`).
        case timestampNotANumber
    }

    /// The longest nonce accepted, in bytes.
    public static let maxNonceBytes = 128

    public let appId: String
    public let nonce: String
    /// Unix seconds as sent.
    public let timestamp: Int64
    /// The header's exact text: the string to sign uses it, not a re-formatted number.
    public let timestampText: String
    public let signature: String

    /// Reads the four headers through `value(name)` (case-insensitive lookup is the caller's).
    public static func parse(_ value: (String) -> String?) -> Result<SignedRequestHeaders, Refusal> {
        var values: [String] = []
        for name in [RequestSignature.appIdHeader, RequestSignature.nonceHeader, RequestSignature.timestampHeader,
                     RequestSignature.signatureHeader] {
            guard let v = value(name), !v.isEmpty else { return .failure(.missingHeader(name)) }
            values.append(v)
        }
        guard values[1].utf8.count <= maxNonceBytes else { return .failure(.nonceTooLong) }
        guard let timestamp = Int64(values[2]) else { return .failure(.timestampNotANumber) }
        return .success(SignedRequestHeaders(appId: values[0], nonce: values[1], timestamp: timestamp,
                                             timestampText: values[2], signature: values[3]))
    }

    /// Whether `timestamp` is within `windowSeconds` of `now`, for any values (no overflow).
    public func isFresh(now: Int64, windowSeconds: Int64) -> Bool {
        timestamp.subtractingSaturating(now).magnitude <= windowSeconds.magnitude
    }

    /// When the nonce may be forgotten: the last second the timestamp is still accepted.
    public func nonceExpiry(windowSeconds: Int64) -> Int64 {
        timestamp.addingSaturating(windowSeconds)
    }

    /// Whether `signature` is the app's MAC of this request, compared in constant time
    /// (hex case ignored).
    public func verifies(appKey: String, method: String, pathAndQuery: String, body: [UInt8]) -> Bool {
        let expected = RequestSignature.sign(appKey: appKey, appId: appId, nonce: nonce, timestamp: timestampText,
                                             method: method, pathAndQuery: pathAndQuery, body: body)
        return ConstantTime.equals(expected.utf8, signature.lowercased().utf8)
    }
}
