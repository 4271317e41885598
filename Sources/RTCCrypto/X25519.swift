import COpenSSL

/// X25519 key agreement (RFC 7748 §5, §6.1) through OpenSSL's EVP interface: two parties that
/// exchanged public keys compute the same 32-byte shared secret. SMeeting's E2EE meetings seal
/// the meeting key with it (docs/e2ee.md, "E2EE meetings"); browsers compute the same with
/// WebCrypto's `X25519`.
public struct X25519KeyPair: Sendable {
    /// Public and private keys, and the shared secret, are 32 bytes.
    public static let keyLength = 32

    /// The private scalar (RFC 7748 §5: clamped when used).
    public let privateKey: [UInt8]
    /// The public key: the scalar times the base point u = 9.
    public let publicKey: [UInt8]

    /// A new random key pair.
    public init() {
        // 32 random bytes make a valid X25519 private key: any value is clamped when used.
        try! self.init(privateKey: SecureRandom.bytes(Self.keyLength))
    }

    /// The pair of a known private key (tests, RFC 7748's vectors).
    public init(privateKey: [UInt8]) throws(X25519Error) {
        guard privateKey.count == Self.keyLength else { throw .wrongKeyLength }
        guard let key = EVP_PKEY_new_raw_private_key(NID_X25519, nil, privateKey, privateKey.count) else { throw .wrongKeyLength }
        defer { EVP_PKEY_free(key) }
        var out = [UInt8](repeating: 0, count: Self.keyLength)
        var length = out.count
        guard EVP_PKEY_get_raw_public_key(key, &out, &length) == 1, length == Self.keyLength else { throw .wrongKeyLength }
        self.privateKey = privateKey
        publicKey = out
    }

    /// The shared secret with the holder of `peerPublicKey` (RFC 7748 §6.1).
    /// - Throws: `wrongKeyLength` for a key that is not 32 bytes; `lowOrderPoint` when the result is
    ///   all zeros (RFC 7748 §6.1 tells to check: the peer's key is one of the few that force it).
    public func sharedSecret(with peerPublicKey: [UInt8]) throws(X25519Error) -> [UInt8] {
        guard peerPublicKey.count == Self.keyLength,
              let mine = EVP_PKEY_new_raw_private_key(NID_X25519, nil, privateKey, privateKey.count) else { throw .wrongKeyLength }
        defer { EVP_PKEY_free(mine) }
        guard let peer = EVP_PKEY_new_raw_public_key(NID_X25519, nil, peerPublicKey, peerPublicKey.count) else { throw .wrongKeyLength }
        defer { EVP_PKEY_free(peer) }
        guard let context = EVP_PKEY_CTX_new(mine, nil) else { throw .lowOrderPoint }
        defer { EVP_PKEY_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: Self.keyLength)
        var length = out.count
        // OpenSSL fails the derivation itself when the result is all zeros.
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peer) == 1,
              EVP_PKEY_derive(context, &out, &length) == 1, length == Self.keyLength,
              out.contains(where: { $0 != 0 }) else { throw .lowOrderPoint }
        return out
    }
}

/// Why an X25519 operation failed.
public enum X25519Error: Error, Equatable, Sendable {
    /// A private or public key that is not 32 bytes.
    case wrongKeyLength
    /// The shared secret came out all zeros: the peer's public key is a low-order point (RFC 7748 §6.1).
    case lowOrderPoint
}
