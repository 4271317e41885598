import COpenSSL

/// PBKDF2-HMAC-SHA256 (RFC 8018 §5.2) through OpenSSL: a key stretched from a passphrase a person
/// may type, so guessing it costs `iterations` HMACs per guess (end-to-end encryption's shared
/// key, docs/e2ee.md). WebCrypto's `deriveBits({name: "PBKDF2", hash: "SHA-256"})` is the same
/// function, so browsers derive the same bytes.
public enum PBKDF2 {
    public static func sha256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        precondition(iterations >= 1 && length >= 1)
        var out = [UInt8](repeating: 0, count: length)
        let ok = password.withUnsafeBufferPointer { password in
            salt.withUnsafeBufferPointer { salt in
                password.baseAddress.map { $0.withMemoryRebound(to: CChar.self, capacity: max(password.count, 1)) { $0 } }
                    .map { PKCS5_PBKDF2_HMAC($0, Int32(password.count), salt.baseAddress, Int32(salt.count), Int32(iterations), EVP_sha256(),
                                             Int32(length), &out) }
                    ?? PKCS5_PBKDF2_HMAC("", 0, salt.baseAddress, Int32(salt.count), Int32(iterations), EVP_sha256(), Int32(length), &out)
            }
        }
        precondition(ok == 1, "PBKDF2 failed in OpenSSL")
        return out
    }
}
