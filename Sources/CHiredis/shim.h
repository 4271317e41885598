#ifndef SRTC_CHIREDIS_SHIM_H
#define SRTC_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#endif
