#ifndef SRTC_CPQ_SHIM_H
#define SRTC_CPQ_SHIM_H
#include <libpq-fe.h>
#endif
