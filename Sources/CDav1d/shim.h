// dav1d's AV1 decoder (Debian libdav1d-dev).
#ifndef SRTC_CDAV1D_SHIM_H
#define SRTC_CDAV1D_SHIM_H
#include <dav1d/dav1d.h>
// DAV1D_ERR(EAGAIN) as a value Swift can compare with (the macro is not imported).
static inline int srtc_dav1d_again(void) { return DAV1D_ERR(EAGAIN); }
#endif
