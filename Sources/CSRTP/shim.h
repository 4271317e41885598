#ifndef SRTC_CSRTP_SHIM_H
#define SRTC_CSRTP_SHIM_H
#include <srtp2/srtp.h>
// The cipher and auth type tables (srtp_replace_cipher_type, srtp_replace_auth_type).
#include <srtp2/cipher.h>
#include <srtp2/auth.h>
#endif
