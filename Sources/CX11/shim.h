// Xlib and the MIT-SHM extension (XShm): screen capture of an X11 display and a native video
// window. Xlib's image destructor is a macro, wrapped here as a function Swift can call.
#ifndef SRTC_CX11_SHIM_H
#define SRTC_CX11_SHIM_H
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
static inline int srtc_XDestroyImage(XImage *image) { return XDestroyImage(image); }
#endif
