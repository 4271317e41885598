// The EVP ciphers behind the SRTP types, fetched once.
//
// Given a legacy EVP_CIPHER such as EVP_aes_128_gcm(), OpenSSL 3's EVP_CipherInit_ex fetches the
// provider's implementation by name again on every key setup (a name lookup in the default
// library context, under its lock: about 5 400 instructions each, measured with callgrind, and
// libsrtp sets up several keys per session). Fetched once, the implementation is reused.
#include <pthread.h>
#include <openssl/evp.h>
#include "srtp_openssl.h"

static const char *const names[SRTC_EVP_CIPHER_COUNT] = {
    [SRTC_AES_128_CTR] = "AES-128-CTR",
    [SRTC_AES_256_CTR] = "AES-256-CTR",
    [SRTC_AES_128_GCM] = "AES-128-GCM",
    [SRTC_AES_256_GCM] = "AES-256-GCM",
};
static EVP_CIPHER *fetched[SRTC_EVP_CIPHER_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fetch_all(void)
{
    for (int i = 0; i < SRTC_EVP_CIPHER_COUNT; i++) {
        fetched[i] = EVP_CIPHER_fetch(NULL, names[i], NULL); // kept for the process's life
    }
}

const EVP_CIPHER *srtc_evp_cipher(srtc_evp_cipher_id id)
{
    pthread_once(&once, fetch_all);
    if (fetched[id] != NULL) {
        return fetched[id];
    }
    // Not fetched (no default provider): the legacy objects, which OpenSSL resolves per init.
    switch (id) {
    case SRTC_AES_128_CTR: return EVP_aes_128_ctr();
    case SRTC_AES_256_CTR: return EVP_aes_256_ctr();
    case SRTC_AES_128_GCM: return EVP_aes_128_gcm();
    case SRTC_AES_256_GCM: return EVP_aes_256_gcm();
    default: return NULL;
    }
}
