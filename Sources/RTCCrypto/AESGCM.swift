import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL's EVP interface: authenticated encryption of
/// small control-plane values (sealed strings), with a 96-bit nonce and a 128-bit tag. Not for
/// media: SRTP's GCM is libsrtp's.
public enum AESGCM {
    public static let keyLength = 32
    public static let nonceLength = 12
    public static let tagLength = 16

    /// Encrypts `plaintext` and authenticates it with `aad`; returns the ciphertext (as long as the
    /// plaintext) followed by the 16-byte tag.
    /// - Precondition: a 32-byte key and a 12-byte nonce, never used twice with the same key.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]) -> [UInt8] {
        precondition(key.count == keyLength && nonce.count == nonceLength, "AES-256-GCM needs a 32-byte key and a 12-byte nonce")
        guard let context = EVP_CIPHER_CTX_new() else { preconditionFailure("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var length: Int32 = 0, finalLength: Int32 = 0
        let ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
            && (aad.isEmpty || EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1)
            && out.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress!
                return (plaintext.isEmpty || EVP_EncryptUpdate(context, base, &length, plaintext, Int32(plaintext.count)) == 1)
                    && EVP_EncryptFinal_ex(context, base + plaintext.count, &finalLength) == 1
                    && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), base + plaintext.count) == 1
            }
        precondition(ok, "AES-256-GCM encryption failed in OpenSSL")
        return out
    }

    /// Decrypts `sealed` (ciphertext ‖ 16-byte tag) and checks its tag against `aad`; nil when the
    /// key is not 32 bytes, the nonce not 12, `sealed` shorter than a tag, or authentication fails.
    public static func open(key: [UInt8], nonce: [UInt8], sealed: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard key.count == keyLength, nonce.count == nonceLength, sealed.count >= tagLength else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let textLength = sealed.count - tagLength
        var out = [UInt8](repeating: 0, count: max(textLength, 1))
        var length: Int32 = 0, finalLength: Int32 = 0
        var tag = Array(sealed[textLength...])
        let ok = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
            && (aad.isEmpty || EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1)
            && (textLength == 0 || EVP_DecryptUpdate(context, &out, &length, sealed, Int32(textLength)) == 1)
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), &tag) == 1
            // The tag is checked here (SP 800-38D §7.2): nothing is returned unless it matches.
            && EVP_DecryptFinal_ex(context, &out, &finalLength) == 1
        guard ok else { return nil }
        return Array(out.prefix(textLength))
    }
}
