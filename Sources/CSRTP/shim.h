#ifndef SRTC_CSRTP_SHIM_H
#define SRTC_CSRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
