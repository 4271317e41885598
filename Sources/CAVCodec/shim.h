// FFmpeg's libavcodec: H.264 (libx264 or OpenH264) and AAC encoding, decoding for the CDN engine.
// FFmpeg's headers include one another, so a declaration may be owned by any of the four
// FFmpeg modules: Swift files using them import all four (CAVUtil, CAVCodec, CAVFormat, CSWScale).
#ifndef SRTC_CAVCODEC_SHIM_H
#define SRTC_CAVCODEC_SHIM_H
#include <libavcodec/avcodec.h>
#endif
