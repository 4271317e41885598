// See include/COpenSSLRuntime.h for why OpenSSL is initialised here, before main().
#include "COpenSSLRuntime.h"
#include <openssl/crypto.h>
#include <openssl/ssl.h>

static int ready = 0;

// A constructor runs after the shared libraries' own initialisers and before any Swift code, so
// this is the first OpenSSL initialisation of the process and decides whether OpenSSL registers
// its atexit handler (the choice is made once, by the first OPENSSL_init_crypto call).
__attribute__((constructor)) static void srtc_openssl_runtime_init(void) {
    ready = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL) == 1
         && OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, NULL) == 1;
}

int srtc_openssl_runtime_ready(void) {
    return ready;
}
