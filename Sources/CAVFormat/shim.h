// FFmpeg's libavformat: the standard muxers (WebM, fragmented MP4, HLS, FLV over RTMP) and demuxers.
// FFmpeg's headers include one another, so a declaration may be owned by any of the four
// FFmpeg modules: Swift files using them import all four (CAVUtil, CAVCodec, CAVFormat, CSWScale).
#ifndef SRTC_CAVFORMAT_SHIM_H
#define SRTC_CAVFORMAT_SHIM_H
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#endif
