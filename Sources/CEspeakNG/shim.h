// eSpeak NG (text to speech): the speak_lib API (synchronous synthesis with a callback).
#ifndef SRTC_CESPEAKNG_SHIM_H
#define SRTC_CESPEAKNG_SHIM_H
#include <espeak-ng/speak_lib.h>
#endif
