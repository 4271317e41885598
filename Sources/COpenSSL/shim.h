// OpenSSL 3 headers, plus inline wrappers for the macros Swift cannot import.
#ifndef SRTC_COPENSSL_SHIM_H
#define SRTC_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/kdf.h>

static inline long srtc_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline long srtc_BIO_set_mem_eof_return(BIO *bio, int value) { return BIO_set_mem_eof_return(bio, value); }
static inline long srtc_BIO_ctrl_pending(BIO *bio) { return (long)BIO_ctrl_pending(bio); }
static inline long srtc_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
static inline long srtc_DTLSv1_get_timeout(SSL *ssl, struct timeval *tv) { return DTLSv1_get_timeout(ssl, tv); }
static inline long srtc_DTLSv1_handle_timeout(SSL *ssl) { return DTLSv1_handle_timeout(ssl); }
static inline long srtc_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long srtc_SSL_CTX_set_options(SSL_CTX *ctx, long options) { return (long)SSL_CTX_set_options(ctx, (uint64_t)options); }
static inline long srtc_SSL_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }
static inline long srtc_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return SSL_CTX_set1_groups_list(ctx, list); }
// DTLS transport (RTCTransport): option bits built by SSL_OP_BIT(n) and the version macro.
static inline uint64_t srtc_SSL_OP_NO_QUERY_MTU(void) { return SSL_OP_NO_QUERY_MTU; }
static inline long srtc_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_min_proto_version(ctx, version); }
// HKDF (RTCCrypto's HKDF): the key type is a macro of a NID.
static inline int srtc_EVP_PKEY_HKDF(void) { return EVP_PKEY_HKDF; }
#endif
