// Internal declarations shared by the CSRTPCrypto sources.
#ifndef SRTC_SRTP_OPENSSL_H
#define SRTC_SRTP_OPENSSL_H

#include <stddef.h>
#include <srtp2/srtp.h>
#include <srtp2/cipher.h>
#include <srtp2/auth.h>
#include <openssl/evp.h>

// The type objects libsrtp calls through (one per algorithm and key size).
extern const srtp_cipher_type_t srtc_aes_icm_128_openssl;
extern const srtp_cipher_type_t srtc_aes_icm_256_openssl;
extern const srtp_cipher_type_t srtc_aes_gcm_128_openssl;
extern const srtp_cipher_type_t srtc_aes_gcm_256_openssl;
extern const srtp_auth_type_t srtc_hmac_sha1_openssl;

// Known-answer tests each type carries as its `test_data` (known_answers.c).
extern const srtp_cipher_test_case_t srtc_aes_icm_128_known_answer;
extern const srtp_cipher_test_case_t srtc_aes_icm_256_known_answer;
extern const srtp_cipher_test_case_t srtc_aes_gcm_128_known_answer;
extern const srtp_cipher_test_case_t srtc_aes_gcm_256_known_answer;
extern const srtp_auth_test_case_t srtc_hmac_sha1_known_answer;

// The EVP implementations the types key with, fetched once (evp_ciphers.c).
typedef enum {
    SRTC_AES_128_CTR,
    SRTC_AES_256_CTR,
    SRTC_AES_128_GCM,
    SRTC_AES_256_GCM,
    SRTC_EVP_CIPHER_COUNT
} srtc_evp_cipher_id;
const EVP_CIPHER *srtc_evp_cipher(srtc_evp_cipher_id id);

#endif
