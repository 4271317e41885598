// libpulse (PulseAudio, also the client API of PipeWire's pulse server): the simple blocking API
// for capture and playback streams, and the asynchronous API for device lists and their events.
#ifndef SRTC_CPULSE_SHIM_H
#define SRTC_CPULSE_SHIM_H
#include <pulse/pulseaudio.h>
#include <pulse/simple.h>
#include <pulse/error.h>
#endif
