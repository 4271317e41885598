import COpenSSL

/// HKDF-SHA256 (RFC 5869), computed by OpenSSL's HKDF key derivation: one secret stretched into
/// keys bound to a context (`info`), as the sealed strings' per-user keys are.
public enum HKDF {
    /// The largest output RFC 5869 §2.3 allows for SHA-256: 255 × 32 bytes.
    public static let maxSHA256Length = 255 * 32

    /// `length` bytes of HKDF-SHA256 (extract then expand, RFC 5869 §2.2–2.3). An empty `salt`
    /// stands for 32 zero bytes, as the RFC says.
    public static func sha256(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition((1...maxSHA256Length).contains(length), "HKDF-SHA256 output must be 1 to \(maxSHA256Length) bytes")
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
                        && EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1
                        && (saltCount == 0 || EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(saltCount)) == 1)
                        && EVP_PKEY_CTX_set1_hkdf_key(context, ikm, Int32(ikmCount)) == 1
                        && (infoCount == 0 || EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(infoCount)) == 1)
                        && EVP_PKEY_derive(context, &out, &outLength) == 1
                }
            }
        }
        precondition(ok && outLength == length, "HKDF-SHA256 failed in OpenSSL")
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
