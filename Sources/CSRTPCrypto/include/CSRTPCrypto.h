// CSRTPCrypto: AES-GCM, AES-ICM and HMAC-SHA1 for libsrtp2 on OpenSSL EVP.
//
// Debian's libsrtp2 is built against NSS, whose PK11 calls allocate and lock on every packet.
// libsrtp lets an application replace the implementation behind a cipher or auth type id
// (srtp_replace_cipher_type / srtp_replace_auth_type); this target supplies OpenSSL-backed types
// for the ids our profiles use. Packet processing, key derivation and replay protection stay
// libsrtp's: only the AES and HMAC primitives change.
#ifndef SRTC_CSRTPCRYPTO_H
#define SRTC_CSRTPCRYPTO_H

#ifdef __cplusplus
extern "C" {
#endif

/// Registers the OpenSSL types for SRTP_AES_ICM_128, SRTP_AES_ICM_256, SRTP_AES_GCM_128,
/// SRTP_AES_GCM_256 and SRTP_HMAC_SHA1 with libsrtp, which first runs each type's own known-answer
/// tests and the tests of the type it replaces, refusing a type that fails them.
/// Call after `srtp_init`, once, before sessions are created on other threads (libsrtp's type
/// table has no lock). Sessions created earlier keep the types they were created with.
/// - Returns: 0 (`srtp_err_status_ok`) when every type was registered, otherwise the libsrtp
///   status of the first refusal; types registered before the refusal stay registered (each
///   passed its tests).
int srtc_srtp_use_openssl_crypto(void);

/// Our `srtp_cipher_type_t` for a libsrtp cipher id (SRTP_AES_ICM_128 = 1, SRTP_AES_ICM_256 = 5,
/// SRTP_AES_GCM_128 = 6, SRTP_AES_GCM_256 = 7), or NULL. For tests that compare it with libsrtp's
/// built-in type.
const void *srtc_srtp_openssl_cipher_type(int cipher_id);

/// Our `srtp_auth_type_t` for a libsrtp auth id (SRTP_HMAC_SHA1 = 3), or NULL.
const void *srtc_srtp_openssl_auth_type(int auth_id);

#ifdef __cplusplus
}
#endif

#endif
