import RTCCrypto

/// The SFrame cipher suites this project uses (RFC 9605 §4.5, IANA "SFrame Cipher Suites"): the
/// AES-GCM ones. The AES-CTR + HMAC suites with short tags are not offered: browsers' encoded
/// transforms and our SDKs both have AES-GCM, and a 16-byte tag per frame costs little.
public enum SFrameCipherSuite: UInt16, Sendable, CaseIterable {
    case aes128GCMSHA256 = 0x0004
    case aes256GCMSHA512 = 0x0005

    /// AEAD.Nk: the key size.
    public var keyLength: Int { self == .aes128GCMSHA256 ? 16 : 32 }
    /// AEAD.Nn: the nonce size.
    public var nonceLength: Int { 12 }
    /// AEAD.Nt: the tag size.
    public var tagLength: Int { 16 }
    /// The hash of the key derivation.
    var hash: HKDF.Hash { self == .aes128GCMSHA256 ? .sha256 : .sha512 }
}
