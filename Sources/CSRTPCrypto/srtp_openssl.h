// Internal declarations shared by the CSRTPCrypto sources.
#ifndef SRTC_SRTP_OPENSSL_H
#define SRTC_SRTP_OPENSSL_H

#include <stddef.h>
#include <srtp2/srtp.h>
#include <srtp2/cipher.h>
#include <srtp2/auth.h>

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

#endif
