// OpenH264 (Cisco's H.264 encoder and decoder), through its C interface (vtables).
#ifndef SRTC_COPENH264_SHIM_H
#define SRTC_COPENH264_SHIM_H
#include <stdbool.h>
#include <wels/codec_api.h>
#include <wels/codec_app_def.h>
#include <wels/codec_def.h>
#endif
