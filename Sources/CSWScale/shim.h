// FFmpeg's libswscale: picture scaling (composite tiles) and pixel-format conversion (decoded frames).
// FFmpeg's headers include one another, so a declaration may be owned by any of the four
// FFmpeg modules: Swift files using them import all four (CAVUtil, CAVCodec, CAVFormat, CSWScale).
#ifndef SRTC_CSWSCALE_SHIM_H
#define SRTC_CSWSCALE_SHIM_H
#include <libswscale/swscale.h>
#endif
