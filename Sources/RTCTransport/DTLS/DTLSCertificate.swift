import COpenSSL
import RTCCrypto

/// An ECDSA P-256 key pair and a self-signed X.509 certificate for DTLS (RFC 8827 §6.5), made
/// once at start and shared by every connection. Immutable after creation, so it may be shared
/// across threads.
// @unchecked Sendable: the key and certificate are made in init and only read after (OpenSSL allows concurrent reads of them).
public final class DTLSCertificate: @unchecked Sendable {
    /// `EVP_PKEY *`.
    let privateKey: OpaquePointer
    /// `X509 *`.
    let certificate: OpaquePointer
    /// The SHA-256 fingerprint to put in SDP.
    public let fingerprint: DTLSFingerprint

    /// Generates a fresh key pair and a certificate valid from a day ago for `validityDays`.
    /// - Parameter commonName: the subject and issuer CN; WebRTC does not check it.
    public init(commonName: String = "srtc", validityDays: Int = 30) throws(DTLSError) {
        guard let keyContext = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw .certificateGenerationFailed("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(keyContext) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(keyContext) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(keyContext, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(keyContext, &key) == 1, let key else {
            throw .certificateGenerationFailed("P-256 key generation")
        }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw .certificateGenerationFailed("X509_new")
        }
        var ok = X509_set_version(x509, 2) == 1 // v3
        // A positive random 63-bit serial (RFC 5280 §4.1.2.2).
        ok = ok && ASN1_INTEGER_set(X509_get_serialNumber(x509), Int(SecureRandom.uint64() >> 1 & 0x7FFF_FFFF)) == 1
        ok = ok && X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil
        ok = ok && X509_gmtime_adj(X509_getm_notAfter(x509), validityDays * 86_400) != nil
        ok = ok && X509_set_pubkey(x509, key) == 1
        let name = X509_get_subject_name(x509)
        ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_FLAG | 1, commonName, -1, -1, 0) == 1
        ok = ok && X509_set_issuer_name(x509, name) == 1
        ok = ok && X509_sign(x509, key, EVP_sha256()) > 0
        guard ok, let fingerprint = DTLSFingerprint.of(certificate: x509, algorithm: "sha-256") else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw .certificateGenerationFailed("self-signed certificate")
        }
        privateKey = key
        certificate = x509
        self.fingerprint = fingerprint
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }
}
