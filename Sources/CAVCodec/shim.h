// FFmpeg's libavcodec: H.264 (libx264 or OpenH264) and AAC encoding, decoding for the CDN engine,
// and its bitstream filters (h264_mp4toannexb for the ingress's H.264 passthrough).
// FFmpeg's headers include one another, so a declaration may be owned by any of the four
// FFmpeg modules: Swift files using them import all four (CAVUtil, CAVCodec, CAVFormat, CSWScale).
#ifndef SRTC_CAVCODEC_SHIM_H
#define SRTC_CAVCODEC_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#endif
