// AES Integer Counter Mode for libsrtp (RFC 3711 §4.1.1) on OpenSSL's EVP AES-CTR.
//
// libsrtp's key for an ICM cipher is the AES key followed by the 14-byte salt (30 or 46 bytes).
// Per packet libsrtp passes a 16-byte IV (SSRC and packet index placed per §4.1.1; for the key
// derivation of §4.3.1, the label); the counter block is
//     (salt · 2^16) XOR IV
// and the block counter fills the low 16 bits, starting at zero. OpenSSL's CTR mode increments
// the whole 128-bit block, which is the same as long as a packet stays within 2^16 blocks —
// enforced below, as §4.1.1 requires. Encryption and decryption are the same XOR with the
// keystream; libsrtp also calls `encrypt` on zeros to read keystream (key derivation, §4.3.3).
// The EVP context keeps the expanded key; a packet only resets the counter, with no allocation.
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include "srtp_openssl.h"

#define ICM_BLOCK 16
/// §4.1.1: "the keystream ... of at most 2^16 blocks" per IV.
#define ICM_MAX_OCTETS_PER_IV ((uint64_t)ICM_BLOCK << 16)

typedef struct {
    EVP_CIPHER_CTX *ctx;
    int key_size;                 // 16 or 32
    uint8_t offset[ICM_BLOCK];    // the salt, then two zero octets
    uint64_t used;                // keystream octets since the last set_iv
} icm_state;

static srtp_err_status_t icm_dealloc(srtp_cipher_t *c)
{
    if (c == NULL) {
        return srtp_err_status_bad_param;
    }
    icm_state *s = (icm_state *)c->state;
    if (s != NULL) {
        EVP_CIPHER_CTX_free(s->ctx);
        OPENSSL_cleanse(s, sizeof *s);
        free(s);
    }
    free(c);
    return srtp_err_status_ok;
}

/// `key_len` counts key and salt: 30 (AES-128) or 46 (AES-256). The GCM profiles' key
/// derivation also comes here, with the 12-byte salt zero-padded to 14 by libsrtp.
static srtp_err_status_t icm_alloc(srtp_cipher_t **c, int key_len, int tag_len)
{
    const srtp_cipher_type_t *type;
    int algorithm, key_size;
    (void)tag_len; // not an AEAD
    switch (key_len) {
    case SRTP_AES_ICM_128_KEY_LEN_WSALT:
        type = &srtc_aes_icm_128_openssl, algorithm = SRTP_AES_ICM_128, key_size = SRTP_AES_128_KEY_LEN;
        break;
    case SRTP_AES_ICM_256_KEY_LEN_WSALT:
        type = &srtc_aes_icm_256_openssl, algorithm = SRTP_AES_ICM_256, key_size = SRTP_AES_256_KEY_LEN;
        break;
    default:
        return srtp_err_status_bad_param;
    }
    srtp_cipher_t *cipher = calloc(1, sizeof *cipher);
    icm_state *s = calloc(1, sizeof *s);
    if (cipher == NULL || s == NULL || (s->ctx = EVP_CIPHER_CTX_new()) == NULL) {
        free(s);
        free(cipher);
        return srtp_err_status_alloc_fail;
    }
    s->key_size = key_size;
    cipher->type = type;
    cipher->state = s;
    cipher->key_len = key_len;
    cipher->algorithm = algorithm;
    *c = cipher;
    return srtp_err_status_ok;
}

/// Expands the key and keeps the salt as the counter offset.
static srtp_err_status_t icm_init(void *state, const uint8_t *key)
{
    icm_state *s = (icm_state *)state;
    const EVP_CIPHER *evp = srtc_evp_cipher(s->key_size == SRTP_AES_256_KEY_LEN ? SRTC_AES_256_CTR : SRTC_AES_128_CTR);
    memcpy(s->offset, key + s->key_size, SRTP_SALT_LEN);
    s->offset[SRTP_SALT_LEN] = s->offset[SRTP_SALT_LEN + 1] = 0;
    s->used = ICM_MAX_OCTETS_PER_IV; // no keystream before set_iv
    if (!EVP_CIPHER_CTX_reset(s->ctx) || !EVP_EncryptInit_ex(s->ctx, evp, NULL, key, NULL)) {
        return srtp_err_status_init_fail;
    }
    return srtp_err_status_ok;
}

/// Counter block = offset XOR IV; the direction does not matter for a stream cipher.
static srtp_err_status_t icm_set_iv(void *state, uint8_t *iv, srtp_cipher_direction_t direction)
{
    icm_state *s = (icm_state *)state;
    uint8_t counter[ICM_BLOCK];
    (void)direction;
    for (int i = 0; i < ICM_BLOCK; i++) {
        counter[i] = s->offset[i] ^ iv[i];
    }
    s->used = 0;
    if (!EVP_EncryptInit_ex(s->ctx, NULL, NULL, NULL, counter)) {
        return srtp_err_status_init_fail;
    }
    return srtp_err_status_ok;
}

/// XORs the next `*octets` keystream bytes into `buffer` (encrypt, decrypt and keystream
/// output alike); later calls continue the same keystream until the next set_iv.
static srtp_err_status_t icm_encrypt(void *state, uint8_t *buffer, unsigned int *octets)
{
    icm_state *s = (icm_state *)state;
    int out_len = 0;
    if (*octets == 0) {
        return srtp_err_status_ok;
    }
    if (buffer == NULL || *octets > INT_MAX) {
        return srtp_err_status_bad_param;
    }
    if (s->used + *octets > ICM_MAX_OCTETS_PER_IV) {
        return srtp_err_status_terminus; // the 16-bit block counter would wrap
    }
    if (!EVP_EncryptUpdate(s->ctx, buffer, &out_len, buffer, (int)*octets) || out_len != (int)*octets) {
        return srtp_err_status_cipher_fail;
    }
    s->used += *octets;
    return srtp_err_status_ok;
}

static const char icm_128_description[] = "AES-128 counter mode using OpenSSL EVP (srtc)";
static const char icm_256_description[] = "AES-256 counter mode using OpenSSL EVP (srtc)";

// Encrypt and decrypt are the same function; ICM has no AAD and no tag.
const srtp_cipher_type_t srtc_aes_icm_128_openssl = {
    icm_alloc, icm_dealloc, icm_init, NULL, icm_encrypt, icm_encrypt, icm_set_iv, NULL,
    icm_128_description, &srtc_aes_icm_128_known_answer, SRTP_AES_ICM_128,
};

const srtp_cipher_type_t srtc_aes_icm_256_openssl = {
    icm_alloc, icm_dealloc, icm_init, NULL, icm_encrypt, icm_encrypt, icm_set_iv, NULL,
    icm_256_description, &srtc_aes_icm_256_known_answer, SRTP_AES_ICM_256,
};
