// libjpeg-turbo's TurboJPEG API: decodes the MJPEG frames many USB cameras send.
#ifndef SRTC_CTURBOJPEG_SHIM_H
#define SRTC_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
