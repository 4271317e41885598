// Video4Linux2 through libv4l2 (which also lets cameras behind vendor formats and plugins work).
// The ioctl request numbers and pixel format codes are function-like macros in
// <linux/videodev2.h>, and v4l2_ioctl is variadic: Swift can use neither, so both are exposed
// here as inline functions.
#ifndef SRTC_CV4L2_SHIM_H
#define SRTC_CV4L2_SHIM_H
#include <string.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
static inline unsigned long srtc_VIDIOC_QUERYCAP(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long srtc_VIDIOC_ENUM_FMT(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long srtc_VIDIOC_S_FMT(void) { return VIDIOC_S_FMT; }
static inline unsigned long srtc_VIDIOC_S_PARM(void) { return VIDIOC_S_PARM; }
static inline unsigned long srtc_VIDIOC_REQBUFS(void) { return VIDIOC_REQBUFS; }
static inline unsigned long srtc_VIDIOC_QUERYBUF(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long srtc_VIDIOC_QBUF(void) { return VIDIOC_QBUF; }
static inline unsigned long srtc_VIDIOC_DQBUF(void) { return VIDIOC_DQBUF; }
static inline unsigned long srtc_VIDIOC_STREAMON(void) { return VIDIOC_STREAMON; }
static inline unsigned long srtc_VIDIOC_STREAMOFF(void) { return VIDIOC_STREAMOFF; }
static inline unsigned int srtc_V4L2_PIX_FMT_YUYV(void) { return V4L2_PIX_FMT_YUYV; }
static inline unsigned int srtc_V4L2_PIX_FMT_MJPEG(void) { return V4L2_PIX_FMT_MJPEG; }
static inline unsigned int srtc_V4L2_PIX_FMT_NV12(void) { return V4L2_PIX_FMT_NV12; }
static inline unsigned int srtc_V4L2_PIX_FMT_YUV420(void) { return V4L2_PIX_FMT_YUV420; }
// v4l2_ioctl is variadic, which Swift cannot call. On a descriptor not opened through
// v4l2_fd_open it is the plain ioctl.
static inline int srtc_v4l2_ioctl(int fd, unsigned long request, void *argument) { return v4l2_ioctl(fd, request, argument); }

// Camera controls (the exposure of `LocalCameraTrack.setCameraExposureRatio`, the autofocus of
// `setCameraFocusPosition`). The control ids are sums of class macros.
static inline unsigned long srtc_VIDIOC_QUERYCTRL(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long srtc_VIDIOC_G_CTRL(void) { return VIDIOC_G_CTRL; }
static inline unsigned long srtc_VIDIOC_S_CTRL(void) { return VIDIOC_S_CTRL; }
static inline unsigned int srtc_V4L2_CID_EXPOSURE_AUTO(void) { return V4L2_CID_EXPOSURE_AUTO; }
static inline unsigned int srtc_V4L2_CID_EXPOSURE_ABSOLUTE(void) { return V4L2_CID_EXPOSURE_ABSOLUTE; }
static inline unsigned int srtc_V4L2_CID_AUTO_EXPOSURE_BIAS(void) { return V4L2_CID_AUTO_EXPOSURE_BIAS; }
static inline unsigned int srtc_V4L2_CID_FOCUS_AUTO(void) { return V4L2_CID_FOCUS_AUTO; }
static inline unsigned int srtc_V4L2_CID_AUTO_FOCUS_START(void) { return V4L2_CID_AUTO_FOCUS_START; }
// struct v4l2_querymenu is packed (its union of a name and a 64-bit value): read here. Returns 0
// and the item's value for an integer menu item the driver has, -1 otherwise.
static inline int srtc_v4l2_integer_menu_item(int fd, unsigned int id, unsigned int index, long long *value) {
    struct v4l2_querymenu menu;
    memset(&menu, 0, sizeof menu);
    menu.id = id;
    menu.index = index;
    if (v4l2_ioctl(fd, VIDIOC_QUERYMENU, &menu) != 0) return -1;
    *value = menu.value;
    return 0;
}
#endif
