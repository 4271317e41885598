import RTCCrypto

/// The key and salt SFrame derives from a base key for one key id (RFC 9605 §4.4.2):
///
///     sframe_secret = HKDF-Extract("", base_key)
///     sframe_key  = HKDF-Expand(sframe_secret, "SFrame 1.0 Secret key "  + KID + cipher_suite, Nk)
///     sframe_salt = HKDF-Expand(sframe_secret, "SFrame 1.0 Secret salt " + KID + cipher_suite, Nn)
///
/// with KID as 8 big-endian bytes and the suite as 2.
public struct SFrameKey: Sendable {
    public let suite: SFrameCipherSuite
    public let keyID: UInt64
    public let key: [UInt8]
    public let salt: [UInt8]

    public init(baseKey: [UInt8], keyID: UInt64, suite: SFrameCipherSuite) {
        self.suite = suite
        self.keyID = keyID
        func label(_ prefix: String) -> [UInt8] {
            Array(prefix.utf8) + (0..<8).map { UInt8(truncatingIfNeeded: keyID >> (56 - 8 * $0)) }
                + [UInt8(suite.rawValue >> 8), UInt8(suite.rawValue & 0xff)]
        }
        key = HKDF.derive(suite.hash, ikm: baseKey, salt: [], info: label("SFrame 1.0 Secret key "), length: suite.keyLength)
        salt = HKDF.derive(suite.hash, ikm: baseKey, salt: [], info: label("SFrame 1.0 Secret salt "), length: suite.nonceLength)
    }

    /// The nonce for `counter`: the salt XOR the counter as a big-endian integer of the nonce's
    /// length (RFC 9605 §4.4.3), written into `nonce` (12 bytes).
    func nonce(counter: UInt64, into nonce: UnsafeMutableRawBufferPointer) {
        for index in 0..<salt.count { nonce[index] = salt[index] }
        for index in 0..<8 { nonce[salt.count - 1 - index] ^= UInt8(truncatingIfNeeded: counter >> (8 * index)) }
    }
}
