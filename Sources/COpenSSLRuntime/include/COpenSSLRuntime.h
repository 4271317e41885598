// COpenSSLRuntime: how OpenSSL's process-wide state lives and dies in our processes.
//
// OpenSSL 3 registers OPENSSL_cleanup with atexit() the first time it initialises. exit() then
// frees its global locks and tables while other threads may still be inside OpenSSL (an I/O
// thread protecting a DTLS record for a usrsctp timer, a dispatch thread signing a webhook):
// their next CRYPTO_THREAD_write_lock is pthread_rwlock_wrlock(NULL), a crash at address 0x18
// after the process had finished its work. This target initialises OpenSSL before main() with
// OPENSSL_INIT_NO_ATEXIT, so exit() leaves OpenSSL alone and the kernel reclaims its memory.
#ifndef SRTC_COPENSSLRUNTIME_H
#define SRTC_COPENSSLRUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when OpenSSL was initialised at load time without its exit-time cleanup, 0 if that
/// initialisation failed. Referenced from Swift so the load-time initialiser is always linked.
int srtc_openssl_runtime_ready(void);

#ifdef __cplusplus
}
#endif

#endif
