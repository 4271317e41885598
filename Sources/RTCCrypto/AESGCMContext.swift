import COpenSSL

/// AES-GCM (NIST SP 800-38D) with a key set once and a nonce per message, for per-frame work
/// (SFrame, RFC 9605 §4.4.3): the OpenSSL cipher contexts are made once and reused, and output
/// goes into a buffer the caller owns, so a frame costs no allocation. `AESGCM` stays the
/// one-shot form for small control-plane values.
///
/// Not thread-safe: one context per sender or per received key, used by one thread at a time.
public final class AESGCMContext {
    public static let nonceLength = 12
    public static let tagLength = 16

    private let encryptor: OpaquePointer
    private let decryptor: OpaquePointer

    /// - Parameter key: 16 bytes (AES-128-GCM) or 32 bytes (AES-256-GCM); nil for any other length.
    public init?(key: [UInt8]) {
        let cipher: OpaquePointer?
        switch key.count {
        case 16: cipher = EVP_aes_128_gcm()
        case 32: cipher = EVP_aes_256_gcm()
        default: return nil
        }
        guard let encryptor = EVP_CIPHER_CTX_new() else { return nil }
        guard let decryptor = EVP_CIPHER_CTX_new() else { EVP_CIPHER_CTX_free(encryptor); return nil }
        self.encryptor = encryptor
        self.decryptor = decryptor
        // The key schedule is computed here, once; each message only sets its nonce.
        guard EVP_EncryptInit_ex(encryptor, cipher, nil, key, nil) == 1,
              EVP_DecryptInit_ex(decryptor, cipher, nil, key, nil) == 1 else { return nil }
    }

    deinit {
        EVP_CIPHER_CTX_free(encryptor)
        EVP_CIPHER_CTX_free(decryptor)
    }

    /// Encrypts `plaintext` authenticated with `aad` into `out`: the ciphertext (as long as the
    /// plaintext) followed by the 16-byte tag. False only if OpenSSL fails.
    /// - Precondition: a 12-byte nonce never used before with this key; `out` holds
    ///   `plaintext.count + tagLength` bytes.
    public func seal(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
                     into out: UnsafeMutableRawBufferPointer) -> Bool {
        precondition(nonce.count == Self.nonceLength && out.count >= plaintext.count + Self.tagLength)
        let base = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var length: Int32 = 0
        return EVP_EncryptInit_ex(encryptor, nil, nil, nil, bytes(nonce)) == 1
            && (aad.isEmpty || EVP_EncryptUpdate(encryptor, nil, &length, bytes(aad), Int32(aad.count)) == 1)
            && (plaintext.isEmpty || EVP_EncryptUpdate(encryptor, base, &length, bytes(plaintext), Int32(plaintext.count)) == 1)
            && EVP_EncryptFinal_ex(encryptor, base + plaintext.count, &length) == 1
            && EVP_CIPHER_CTX_ctrl(encryptor, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagLength), base + plaintext.count) == 1
    }

    /// Decrypts `sealed` (ciphertext ‖ tag) into `out` and checks the tag against `aad`; false when
    /// `sealed` is shorter than a tag or authentication fails (then `out` holds nothing usable).
    /// - Precondition: a 12-byte nonce; `out` holds `sealed.count - tagLength` bytes.
    public func open(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer,
                     into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard nonce.count == Self.nonceLength, sealed.count >= Self.tagLength else { return false }
        let textLength = sealed.count - Self.tagLength
        precondition(out.count >= textLength)
        var length: Int32 = 0
        // OpenSSL wants a writable tag buffer; 16 bytes on the stack.
        var tag: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &tag) { tagBytes in
            tagBytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: sealed[textLength...]))
            let base = out.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }
            // GCM's final step writes no bytes; it needs a valid address even for an empty text.
            let end = base.map { $0 + textLength } ?? tagBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return EVP_DecryptInit_ex(decryptor, nil, nil, nil, bytes(nonce)) == 1
                && (aad.isEmpty || EVP_DecryptUpdate(decryptor, nil, &length, bytes(aad), Int32(aad.count)) == 1)
                && (textLength == 0 || EVP_DecryptUpdate(decryptor, base, &length, bytes(sealed), Int32(textLength)) == 1)
                && EVP_CIPHER_CTX_ctrl(decryptor, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagLength), tagBytes.baseAddress) == 1
                // The tag is checked here (SP 800-38D §7.2).
                && EVP_DecryptFinal_ex(decryptor, end, &length) == 1
        }
    }

    private func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
