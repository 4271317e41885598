// HMAC-SHA1 for libsrtp (RFC 3711 §4.2.1; HMAC per RFC 2104) on OpenSSL's SHA-1.
//
// libsrtp's contract for an auth type, per packet: start(), update(authenticated portion),
// compute(ROC or SRTCP index, tag_len, tag) — compute absorbs its input, then writes the first
// tag_len bytes of the MAC.
//
// Why not HMAC_CTX or EVP_MAC: in OpenSSL 3.0 re-initializing either without a new key copies
// the saved digest context through the provider's dupctx, which allocates twice per packet
// (measured: 2 allocations and ~350–390 ns for a 200-byte packet, against ~260 ns and none
// here). RFC 2104 §4 suggests precomputing the hash state after the padded key blocks instead:
// we keep the SHA-1 state after K XOR ipad and after K XOR opad, and each packet copies a
// plain struct. SHA1_Init/Update/Final are deprecated in OpenSSL 3 but still provided, and run
// the same SHA-NI code the EVP digests use.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <stdlib.h>
#include <string.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include "srtp_openssl.h"

typedef struct {
    SHA_CTX inner_start;   // SHA-1 state after absorbing (K XOR ipad), RFC 2104 §2
    SHA_CTX outer_start;   // SHA-1 state after absorbing (K XOR opad)
    SHA_CTX inner;         // the packet being authenticated
} hmac_state;

static srtp_err_status_t hmac_dealloc(srtp_auth_t *a)
{
    if (a == NULL) {
        return srtp_err_status_bad_param;
    }
    if (a->state != NULL) {
        OPENSSL_cleanse(a->state, sizeof(hmac_state));
        free(a->state);
    }
    OPENSSL_cleanse(a, sizeof *a);
    free(a);
    return srtp_err_status_ok;
}

/// `out_len` is the tag length libsrtp will ask for (10 for the _80 profile, at most 20).
static srtp_err_status_t hmac_alloc(srtp_auth_t **a, int key_len, int out_len)
{
    if (key_len < 0 || out_len < 0 || out_len > SHA_DIGEST_LENGTH) {
        return srtp_err_status_bad_param;
    }
    srtp_auth_t *auth = calloc(1, sizeof *auth);
    hmac_state *s = calloc(1, sizeof *s);
    if (auth == NULL || s == NULL) {
        free(s);
        free(auth);
        return srtp_err_status_alloc_fail;
    }
    auth->type = &srtc_hmac_sha1_openssl;
    auth->state = s;
    auth->out_len = out_len;
    auth->key_len = key_len;
    auth->prefix_len = 0; // no keystream prefix (that is for UST-style auth)
    *a = auth;
    return srtp_err_status_ok;
}

/// RFC 2104 §2: a key longer than the 64-byte block is hashed first; shorter keys are padded
/// with zeros. Both padded keys are absorbed here, once per session.
static srtp_err_status_t hmac_init(void *state, const uint8_t *key, int key_len)
{
    hmac_state *s = (hmac_state *)state;
    uint8_t block[SHA_CBLOCK] = {0};
    uint8_t pad[SHA_CBLOCK];
    if (key_len < 0 || (key_len > 0 && key == NULL)) {
        return srtp_err_status_bad_param;
    }
    if (key_len > SHA_CBLOCK) {
        SHA1(key, (size_t)key_len, block);
    } else if (key_len > 0) {
        memcpy(block, key, (size_t)key_len);
    }
    for (int i = 0; i < SHA_CBLOCK; i++) {
        pad[i] = block[i] ^ 0x36;
    }
    int ok = SHA1_Init(&s->inner_start) && SHA1_Update(&s->inner_start, pad, sizeof pad);
    for (int i = 0; i < SHA_CBLOCK; i++) {
        pad[i] = block[i] ^ 0x5c;
    }
    ok = ok && SHA1_Init(&s->outer_start) && SHA1_Update(&s->outer_start, pad, sizeof pad);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
    s->inner = s->inner_start;
    return ok ? srtp_err_status_ok : srtp_err_status_init_fail;
}

/// Begins a message: the inner hash restarts from the keyed state (a struct copy).
static srtp_err_status_t hmac_start(void *state)
{
    hmac_state *s = (hmac_state *)state;
    s->inner = s->inner_start;
    return srtp_err_status_ok;
}

static srtp_err_status_t hmac_update(void *state, const uint8_t *message, int octets)
{
    hmac_state *s = (hmac_state *)state;
    if (octets < 0 || (octets > 0 && message == NULL)) {
        return srtp_err_status_bad_param;
    }
    if (octets > 0 && !SHA1_Update(&s->inner, message, (size_t)octets)) {
        return srtp_err_status_auth_fail;
    }
    return srtp_err_status_ok;
}

/// Absorbs the last bytes, then writes the first `tag_len` bytes of
/// SHA1((K XOR opad) || SHA1((K XOR ipad) || message)).
static srtp_err_status_t hmac_compute(void *state, const uint8_t *message, int octets, int tag_len, uint8_t *tag)
{
    hmac_state *s = (hmac_state *)state;
    uint8_t inner_digest[SHA_DIGEST_LENGTH];
    uint8_t mac[SHA_DIGEST_LENGTH];
    SHA_CTX outer;
    if (tag_len < 0 || tag_len > SHA_DIGEST_LENGTH) {
        return srtp_err_status_bad_param;
    }
    srtp_err_status_t status = hmac_update(state, message, octets);
    if (status != srtp_err_status_ok) {
        return status;
    }
    outer = s->outer_start;
    if (!SHA1_Final(inner_digest, &s->inner) || !SHA1_Update(&outer, inner_digest, sizeof inner_digest)
        || !SHA1_Final(mac, &outer)) {
        return srtp_err_status_auth_fail;
    }
    memcpy(tag, mac, (size_t)tag_len);
    return srtp_err_status_ok;
}

static const char hmac_description[] = "HMAC-SHA1 using OpenSSL SHA-1 (srtc)";

const srtp_auth_type_t srtc_hmac_sha1_openssl = {
    hmac_alloc, hmac_dealloc, hmac_init, hmac_compute, hmac_update, hmac_start,
    hmac_description, &srtc_hmac_sha1_known_answer, SRTP_HMAC_SHA1,
};
