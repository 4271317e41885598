import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = RAND_bytes(&out, Int32(count))
        precondition(ok == 1, "RAND_bytes failed; the process has no entropy source")
        return out
    }

    /// A random `UInt32` (SSRCs, ICE tie-breakers' halves, nonces).
    public static func uint32() -> UInt32 {
        bytes(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }

    /// A random `UInt64` (ICE tie-breakers).
    public static func uint64() -> UInt64 {
        bytes(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    /// A random string of `count` characters from `alphabet` (ICE ufrag/pwd, ids), without modulo bias.
    public static func string(count: Int, alphabet: String = alphanumeric) -> String {
        let chars = Array(alphabet.utf8)
        precondition(!chars.isEmpty && chars.count <= 256 && chars.allSatisfy { $0 < 0x80 }, "alphabet must be 1 to 256 ASCII characters")
        let limit = 256 - (256 % chars.count)
        var random = [UInt8](repeating: 0, count: count * 2 + 8)
        return String(unsafeUninitializedCapacity: count) { out in
            var written = 0
            while written < count {
                guard RAND_bytes(&random, Int32(random.count)) == 1 else { preconditionFailure("RAND_bytes failed") }
                for byte in random where Int(byte) < limit && written < count {
                    out[written] = chars[Int(byte) % chars.count]
                    written += 1
                }
            }
            return written
        }
    }

    /// Letters and digits.
    public static let alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
}
