import COpenSSL

/// Hashes and MACs used across the project (STUN integrity, request signing, tokens, WebSocket
/// handshakes), computed by OpenSSL's one-shot functions so no Swift code re-implements them.
public enum Digest {
    /// SHA-1 of `data` (20 bytes). Used only where a protocol mandates it (RFC 6455 §4.2.2).
    public static func sha1(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        data.withUnsafeBytes { input in
            _ = SHA1(input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, &out)
        }
        return out
    }

    /// MD5 of `data` (16 bytes). Only where a protocol mandates it: the STUN long-term credential
    /// key of TURN (RFC 8489 §9.2.2).
    public static func md5(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        data.withUnsafeBytes { input in
            _ = EVP_Digest(input.baseAddress, input.count, &out, &length, EVP_md5(), nil)
        }
        return out
    }

    /// SHA-256 of `data` (32 bytes).
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { input in
            _ = SHA256(input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, &out)
        }
        return out
    }

    /// HMAC-SHA256 of `message` keyed with `key` (32 bytes).
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        hmac(EVP_sha256(), length: 32, key: key, message: message)
    }

    /// HMAC-SHA1 of `message` keyed with `key` (20 bytes), as STUN MESSAGE-INTEGRITY needs (RFC 8489 §14.5).
    public static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        hmac(EVP_sha1(), length: 20, key: key, message: message)
    }

    /// HMAC-SHA1 written into `output` (at least 20 bytes) without allocating; for per-packet use.
    public static func hmacSHA1(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= 20, "HMAC-SHA1 needs 20 bytes of output")
        var length: UInt32 = 0
        _ = HMAC(EVP_sha1(), key.baseAddress, Int32(key.count),
                 message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                 output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
    }

    private static func hmac(
        _ md: OpaquePointer?, length: Int, key: [UInt8], message: [UInt8]
    ) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var outLength: UInt32 = 0
        key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                _ = HMAC(md, k.baseAddress, Int32(k.count),
                         m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &out, &outLength)
            }
        }
        return out
    }
}
