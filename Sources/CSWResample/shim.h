// FFmpeg's libswresample: sample-rate and channel conversion with a proper low-pass filter
// (going down to 16 kHz for speech recognition aliases without one).
#ifndef SRTC_CSWRESAMPLE_SHIM_H
#define SRTC_CSWRESAMPLE_SHIM_H
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#endif
