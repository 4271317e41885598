// Registration of the OpenSSL types with libsrtp's crypto kernel.
#include "CSRTPCrypto.h"
#include "srtp_openssl.h"

int srtc_srtp_use_openssl_crypto(void)
{
    // ICM first: every profile's key derivation (RFC 3711 §4.3) runs on it.
    static const srtp_cipher_type_t *const ciphers[] = {
        &srtc_aes_icm_128_openssl,
        &srtc_aes_icm_256_openssl,
        &srtc_aes_gcm_128_openssl,
        &srtc_aes_gcm_256_openssl,
    };
    for (size_t i = 0; i < sizeof ciphers / sizeof ciphers[0]; i++) {
        // libsrtp runs this type's test_data, then the replaced type's, before switching.
        srtp_err_status_t status = srtp_replace_cipher_type(ciphers[i], ciphers[i]->id);
        if (status != srtp_err_status_ok) {
            return (int)status;
        }
    }
    return (int)srtp_replace_auth_type(&srtc_hmac_sha1_openssl, srtc_hmac_sha1_openssl.id);
}

const void *srtc_srtp_openssl_cipher_type(int cipher_id)
{
    switch (cipher_id) {
    case SRTP_AES_ICM_128: return &srtc_aes_icm_128_openssl;
    case SRTP_AES_ICM_256: return &srtc_aes_icm_256_openssl;
    case SRTP_AES_GCM_128: return &srtc_aes_gcm_128_openssl;
    case SRTP_AES_GCM_256: return &srtc_aes_gcm_256_openssl;
    default: return NULL;
    }
}

const void *srtc_srtp_openssl_auth_type(int auth_id)
{
    return auth_id == SRTP_HMAC_SHA1 ? &srtc_hmac_sha1_openssl : NULL;
}
