// Xlib and the MIT-SHM extension (XShm): screen capture of an X11 display and a native video
// window. Xlib's image destructor is a macro, wrapped here as a function Swift can call.
#ifndef SRTC_CX11_SHIM_H
#define SRTC_CX11_SHIM_H
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <X11/Xatom.h>
static inline int srtc_XDestroyImage(XImage *image) { return XDestroyImage(image); }
// Xatom.h's predefined atoms are casts Swift cannot import.
static const Atom srtc_XA_CARDINAL = XA_CARDINAL;
static const Atom srtc_XA_STRING = XA_STRING;
static const Atom srtc_XA_WM_CLASS = XA_WM_CLASS;
#endif
