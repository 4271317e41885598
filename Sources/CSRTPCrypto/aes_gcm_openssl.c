// AEAD_AES_128_GCM and AEAD_AES_256_GCM for libsrtp (RFC 7714) on OpenSSL's EVP AES-GCM.
//
// libsrtp's contract for a GCM cipher type, per packet:
//   set_iv(12-byte IV, direction)  RFC 7714 §8.1 (SRTP) / §9.1 (SRTCP): libsrtp builds the IV
//   set_aad(...) one or more times  §8.2 / §9.2: the RTP header, or the RTCP header + E/index word
//   encrypt(buf, len)              in place, *len unchanged; may be (NULL, 0) for unencrypted SRTCP
//   get_tag(out, &tag_len)         writes the tag after the ciphertext, sets *tag_len
// or, receiving:
//   decrypt(buf, len)              buf holds ciphertext then the tag; *len counts both on entry
//                                  and only the plaintext on return; a bad tag is auth_fail.
// The EVP context is created with the key once per session; each packet only resets the IV, so
// nothing is allocated per packet. OpenSSL compares the tag in constant time (CRYPTO_memcmp) in
// EVP_DecryptFinal_ex. The tag is read and set as the provider's parameter directly: through
// EVP_CIPHER_CTX_ctrl, OpenSSL 3 first translates the legacy control into that parameter.
#include <stdlib.h>
#include <limits.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "srtp_openssl.h"

#define GCM_IV_LEN 12

typedef struct {
    EVP_CIPHER_CTX *ctx;
    int key_size;                  // 16 or 32 (the salt that follows in libsrtp's key is unused)
    int tag_len;                   // 8 or 16 (RFC 7714 §14.2 uses 16; libsrtp's tests also use 8)
    srtp_cipher_direction_t dir;   // of the current packet, from set_iv
} gcm_state;

static srtp_err_status_t gcm_dealloc(srtp_cipher_t *c)
{
    if (c == NULL) {
        return srtp_err_status_bad_param;
    }
    gcm_state *s = (gcm_state *)c->state;
    if (s != NULL) {
        EVP_CIPHER_CTX_free(s->ctx); // clears the key schedule
        OPENSSL_cleanse(s, sizeof *s);
        free(s);
    }
    free(c);
    return srtp_err_status_ok;
}

/// `key_len` counts the key and the 12-byte salt (28 or 44), as libsrtp passes it.
static srtp_err_status_t gcm_alloc(srtp_cipher_t **c, int key_len, int tag_len)
{
    const srtp_cipher_type_t *type;
    int algorithm, key_size;
    switch (key_len) {
    case SRTP_AES_GCM_128_KEY_LEN_WSALT:
        type = &srtc_aes_gcm_128_openssl, algorithm = SRTP_AES_GCM_128, key_size = SRTP_AES_128_KEY_LEN;
        break;
    case SRTP_AES_GCM_256_KEY_LEN_WSALT:
        type = &srtc_aes_gcm_256_openssl, algorithm = SRTP_AES_GCM_256, key_size = SRTP_AES_256_KEY_LEN;
        break;
    default:
        return srtp_err_status_bad_param;
    }
    if (tag_len != 8 && tag_len != 16) {
        return srtp_err_status_bad_param;
    }
    srtp_cipher_t *cipher = calloc(1, sizeof *cipher);
    gcm_state *s = calloc(1, sizeof *s);
    if (cipher == NULL || s == NULL || (s->ctx = EVP_CIPHER_CTX_new()) == NULL) {
        free(s);
        free(cipher);
        return srtp_err_status_alloc_fail;
    }
    s->key_size = key_size;
    s->tag_len = tag_len;
    s->dir = srtp_direction_any;
    cipher->type = type;
    cipher->state = s;
    cipher->key_len = key_len;
    cipher->algorithm = algorithm; // libsrtp's self test keys its GCM steps on this
    *c = cipher;
    return srtp_err_status_ok;
}

/// Expands the key once; packets then only set their IV.
static srtp_err_status_t gcm_init(void *state, const uint8_t *key)
{
    gcm_state *s = (gcm_state *)state;
    const EVP_CIPHER *evp = srtc_evp_cipher(s->key_size == SRTP_AES_256_KEY_LEN ? SRTC_AES_256_GCM : SRTC_AES_128_GCM);
    s->dir = srtp_direction_any;
    if (!EVP_CIPHER_CTX_reset(s->ctx) || !EVP_CipherInit_ex(s->ctx, evp, NULL, key, NULL, 1)) {
        return srtp_err_status_init_fail;
    }
    return srtp_err_status_ok;
}

/// Starts a packet: the 96-bit IV (OpenSSL's default GCM IV length) and the direction.
static srtp_err_status_t gcm_set_iv(void *state, uint8_t *iv, srtp_cipher_direction_t direction)
{
    gcm_state *s = (gcm_state *)state;
    if (direction != srtp_direction_encrypt && direction != srtp_direction_decrypt) {
        return srtp_err_status_bad_param;
    }
    s->dir = direction;
    if (!EVP_CipherInit_ex(s->ctx, NULL, NULL, NULL, iv, direction == srtp_direction_encrypt)) {
        return srtp_err_status_init_fail;
    }
    return srtp_err_status_ok;
}

/// Adds associated data (authenticated, not encrypted); all of it precedes the payload.
static srtp_err_status_t gcm_set_aad(void *state, const uint8_t *aad, uint32_t aad_len)
{
    gcm_state *s = (gcm_state *)state;
    int out_len = 0;
    if (s->dir != srtp_direction_encrypt && s->dir != srtp_direction_decrypt) {
        return srtp_err_status_bad_param;
    }
    if (aad_len == 0) {
        return srtp_err_status_ok;
    }
    if (aad == NULL || aad_len > INT_MAX || !EVP_CipherUpdate(s->ctx, NULL, &out_len, aad, (int)aad_len)) {
        return srtp_err_status_algo_fail;
    }
    return srtp_err_status_ok;
}

/// Encrypts `*octets` bytes in place; the tag comes from `gcm_get_tag`.
static srtp_err_status_t gcm_encrypt(void *state, uint8_t *buffer, unsigned int *octets)
{
    gcm_state *s = (gcm_state *)state;
    int out_len = 0;
    if (s->dir != srtp_direction_encrypt) {
        return srtp_err_status_bad_param;
    }
    if (*octets == 0) {
        return srtp_err_status_ok; // unencrypted SRTCP (RFC 7714 §9.3): the tag covers only AAD
    }
    if (buffer == NULL || *octets > INT_MAX
        || !EVP_EncryptUpdate(s->ctx, buffer, &out_len, buffer, (int)*octets)
        || out_len != (int)*octets) {
        return srtp_err_status_cipher_fail;
    }
    return srtp_err_status_ok;
}

/// Finishes the packet and writes its tag (RFC 7714 §7: the tag follows the ciphertext).
static srtp_err_status_t gcm_get_tag(void *state, uint8_t *tag, uint32_t *len)
{
    gcm_state *s = (gcm_state *)state;
    int out_len = 0;
    if (s->dir != srtp_direction_encrypt) {
        return srtp_err_status_bad_param;
    }
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, (size_t)s->tag_len),
        OSSL_PARAM_END,
    };
    if (!EVP_EncryptFinal_ex(s->ctx, tag, &out_len) || !EVP_CIPHER_CTX_get_params(s->ctx, params)) {
        return srtp_err_status_algo_fail;
    }
    *len = (uint32_t)s->tag_len;
    return srtp_err_status_ok;
}

/// Verifies and decrypts in place: `*octets` counts ciphertext and tag on entry, plaintext on
/// return. A tag mismatch is `auth_fail` (the buffer then holds unverified bytes: discard it).
static srtp_err_status_t gcm_decrypt(void *state, uint8_t *buffer, unsigned int *octets)
{
    gcm_state *s = (gcm_state *)state;
    int out_len = 0;
    if (s->dir != srtp_direction_decrypt) {
        return srtp_err_status_bad_param;
    }
    if (buffer == NULL || *octets < (unsigned int)s->tag_len || *octets > INT_MAX) {
        return srtp_err_status_bad_param;
    }
    unsigned int data_len = *octets - (unsigned int)s->tag_len;
    // OpenSSL copies the expected tag into the context; Final compares it.
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, buffer + data_len, (size_t)s->tag_len),
        OSSL_PARAM_END,
    };
    if (!EVP_CIPHER_CTX_set_params(s->ctx, params)) {
        return srtp_err_status_auth_fail;
    }
    if (data_len > 0
        && (!EVP_DecryptUpdate(s->ctx, buffer, &out_len, buffer, (int)data_len) || out_len != (int)data_len)) {
        return srtp_err_status_cipher_fail;
    }
    if (EVP_DecryptFinal_ex(s->ctx, buffer + data_len, &out_len) <= 0) {
        return srtp_err_status_auth_fail;
    }
    *octets = data_len;
    return srtp_err_status_ok;
}

static const char gcm_128_description[] = "AES-128 GCM using OpenSSL EVP (srtc)";
static const char gcm_256_description[] = "AES-256 GCM using OpenSSL EVP (srtc)";

const srtp_cipher_type_t srtc_aes_gcm_128_openssl = {
    gcm_alloc, gcm_dealloc, gcm_init, gcm_set_aad, gcm_encrypt, gcm_decrypt, gcm_set_iv, gcm_get_tag,
    gcm_128_description, &srtc_aes_gcm_128_known_answer, SRTP_AES_GCM_128,
};

const srtp_cipher_type_t srtc_aes_gcm_256_openssl = {
    gcm_alloc, gcm_dealloc, gcm_init, gcm_set_aad, gcm_encrypt, gcm_decrypt, gcm_set_iv, gcm_get_tag,
    gcm_256_description, &srtc_aes_gcm_256_known_answer, SRTP_AES_GCM_256,
};
