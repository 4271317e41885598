import COpenSSL

/// HKDF (RFC 5869) over SHA-256 or SHA-512, computed by OpenSSL's HKDF key derivation: one secret
/// stretched into keys bound to a context (`info`), as the sealed strings' per-user keys and
/// SFrame's keys and salts (RFC 9605 §4.4.2) are.
public enum HKDF {
    /// The largest output RFC 5869 §2.3 allows for SHA-256: 255 × 32 bytes.
    public static let maxSHA256Length = 255 * 32

    /// The hash HKDF is built on.
    public enum Hash: Sendable {
        case sha256, sha512

        /// The hash's output size in bytes (RFC 5869's HashLen).
        public var length: Int { self == .sha256 ? 32 : 64 }
    }

    /// `length` bytes of HKDF-SHA256 (extract then expand, RFC 5869 §2.2–2.3). An empty `salt`
    /// stands for 32 zero bytes, as the RFC says.
    public static func sha256(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        derive(.sha256, ikm: ikm, salt: salt, info: info, length: length)
    }

    /// `length` bytes of HKDF over `hash`: `HKDF-Expand(HKDF-Extract(salt, ikm), info, length)`.
    /// An empty `salt` stands for HashLen zero bytes (RFC 5869 §2.2).
    public static func derive(_ hash: Hash, ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition((1...255 * hash.length).contains(length), "HKDF output must be 1 to \(255 * hash.length) bytes")
        guard let context = EVP_PKEY_CTX_new_id(srtc_EVP_PKEY_HKDF(), nil) else { preconditionFailure("OpenSSL has no HKDF") }
        defer { EVP_PKEY_CTX_free(context) }
        // Zero-length inputs are passed as one valid byte with a length of 0: OpenSSL refuses a
        // NULL key and Swift gives empty arrays no address.
        var out = [UInt8](repeating: 0, count: length)
        var outLength = length
        let ok = withBytes(ikm) { ikm, ikmCount in
            withBytes(salt) { salt, saltCount in
                withBytes(info) { info, infoCount in
                    EVP_PKEY_derive_init(context) == 1
                        && EVP_PKEY_CTX_set_hkdf_md(context, hash == .sha256 ? EVP_sha256() : EVP_sha512()) == 1
                        && (saltCount == 0 || EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(saltCount)) == 1)
                        && EVP_PKEY_CTX_set1_hkdf_key(context, ikm, Int32(ikmCount)) == 1
                        && (infoCount == 0 || EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(infoCount)) == 1)
                        && EVP_PKEY_derive(context, &out, &outLength) == 1
                }
            }
        }
        precondition(ok && outLength == length, "HKDF failed in OpenSSL")
        return out
    }

    private static func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> T) -> T {
        if bytes.isEmpty {
            var one: UInt8 = 0
            return body(&one, 0)
        }
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}
