// usrsctp: SCTP in user space (data channels run SCTP over DTLS, RFC 8261 / RFC 8831).
#ifndef SRTC_CUSRSCTP_SHIM_H
#define SRTC_CUSRSCTP_SHIM_H
#include <sys/socket.h>
#include <usrsctp.h>
#endif
