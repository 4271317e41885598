#!/bin/sh
# Regenerates the camera-format fixtures of CameraFrameConverterTests with FFmpeg (not run by the
# tests; the outputs are committed). The reference picture is FFmpeg's `testsrc2` (colour, edges,
# text) at 64x48 in I420; every other file is that picture as a camera would deliver it.
set -eu
cd "$(dirname "$0")"
ff() { ffmpeg -v error -y "$@"; }
raw="-f rawvideo -pix_fmt yuv420p -s 64x48 -i reference-64x48.i420"
ff -f lavfi -i testsrc2=size=64x48:rate=1 -frames:v 1 -pix_fmt yuv420p -f rawvideo reference-64x48.i420
# YUYV and NV12 with rows padded as drivers do (bytesperline 160 and 80): pad each row with 0xEE.
ff $raw -pix_fmt yuyv422 -f rawvideo yuyv.tmp
python3 -c 'import sys; d=open("yuyv.tmp","rb").read(); open("yuyv-64x48-stride160.raw","wb").write(b"".join(d[i:i+128]+b"\xee"*32 for i in range(0,len(d),128)))'
ff $raw -pix_fmt nv12 -f rawvideo nv12.tmp
python3 -c 'import sys; d=open("nv12.tmp","rb").read(); open("nv12-64x48-stride80.raw","wb").write(b"".join(d[i:i+64]+b"\xee"*16 for i in range(0,len(d),64)))'
rm -f yuyv.tmp nv12.tmp
# MJPEG frames: 4:2:2 (what USB cameras send), 4:2:0, 4:4:4 and greyscale.
for s in 422 420 444; do ff $raw -pix_fmt yuvj${s}p -q:v 2 -f mjpeg mjpeg-${s}-64x48.jpg; done
ff $raw -pix_fmt gray -q:v 2 -f mjpeg mjpeg-gray-64x48.jpg
# Greyscale (FFmpeg's MJPEG encoder has none): libjpeg-turbo's own compressor, through ctypes,
# from the reference's luma expanded to full range (JPEG's), as a greyscale camera would send it.
python3 - <<'PY'
import ctypes
tj = ctypes.CDLL("libturbojpeg.so.0")
tj.tjInitCompress.restype = ctypes.c_void_p
luma = open("reference-64x48.i420", "rb").read()[:64 * 48]
full = bytes(max(0, min(255, round((y - 16) * 255 / 219))) for y in luma)
handle = ctypes.c_void_p(tj.tjInitCompress())
out, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_ulong(0)
TJPF_GRAY, TJSAMP_GRAY = 6, 3
assert tj.tjCompress2(handle, full, 64, 64, 48, TJPF_GRAY, ctypes.byref(out), ctypes.byref(size), TJSAMP_GRAY, 95, 0) == 0
open("mjpeg-gray-64x48.jpg", "wb").write(ctypes.string_at(out, size.value))
PY
python3 make-expected.py
