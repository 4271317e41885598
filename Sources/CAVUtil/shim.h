// FFmpeg's libavutil: frames, dictionaries, rational numbers, errors. The macros Swift cannot
// FFmpeg's headers include one another, so a declaration may be owned by any of the four
// FFmpeg modules: Swift files using them import all four (CAVUtil, CAVCodec, CAVFormat, CSWScale).
// import (a cast in AV_NOPTS_VALUE, the tag arithmetic of AVERROR) are given as constants here.
#ifndef SRTC_CAVUTIL_SHIM_H
#define SRTC_CAVUTIL_SHIM_H
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
static const int64_t srtc_av_nopts_value = AV_NOPTS_VALUE;
static const int srtc_averror_eof = AVERROR_EOF;
static const int srtc_averror_eagain = AVERROR(EAGAIN);
static const int srtc_averror_exit = AVERROR_EXIT;
#endif
