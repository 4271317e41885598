#!/usr/bin/env python3
"""Derives what the camera conversions must return for the YUYV and MJPEG fixtures (run by
make-fixtures.sh), independently of the Swift code.

YUYV (4:2:2, `Y0 U Y1 V`): luma as stored; each I420 chroma sample is the mean of the two rows'
samples, rounded half up. Comparing with the reference picture instead cannot be exact: FFmpeg
made the 4:2:2 rows by interpolating between chroma rows, which averaging does not undo.

MJPEG: libjpeg-turbo (through ctypes) decodes each JPEG to its own planes
(4:2:0, 4:2:2 or 4:4:4, no colour conversion); chroma is brought to 4:2:0 by the mean of the
samples each I420 sample covers (1x2 for 4:2:2, 2x2 for 4:4:4), rounded half up; then JFIF's
full range becomes BT.601 video range: Y' = 16 + round(219 Y / 255), C' = 16 + round(224 C / 255)
(Rec. ITU-R BT.601-7 section 2.5.3). The sums cannot fall on a half (255 is odd), so round() is exact.
The 4:4:4 fixture's chroma was interpolated up from the reference's 4:2:0 by FFmpeg, so its mean
lands a few steps off the reference on edges: the expectation is this file, not the reference.
"""
import ctypes

W, H = 64, 48
tj = ctypes.CDLL("libturbojpeg.so.0")
tj.tjInitDecompress.restype = ctypes.c_void_p
handle = ctypes.c_void_p(tj.tjInitDecompress())

def video(value, span):
    return 16 + (value * span + 127) // 255

for name, (cw, xs, ys) in {"420": (W // 2, 1, 1), "422": (W // 2, 1, 2), "444": (W, 2, 2)}.items():
    jpeg = open(f"mjpeg-{name}-64x48.jpg", "rb").read()
    # Stored chroma plane height: 4:2:0 is half height, 4:2:2 and 4:4:4 full height.
    stored_h = H // 2 if name == "420" else H
    planes = [ctypes.create_string_buffer(W * H), ctypes.create_string_buffer(cw * stored_h), ctypes.create_string_buffer(cw * stored_h)]
    pointers = (ctypes.c_void_p * 3)(*[ctypes.addressof(p) for p in planes])
    strides = (ctypes.c_int * 3)(W, cw, cw)
    assert tj.tjDecompressToYUVPlanes(handle, jpeg, len(jpeg), pointers, W, strides, H, 0) == 0
    out = bytearray(video(y, 219) for y in planes[0].raw)
    for plane in planes[1:]:
        raw = plane.raw
        for cy in range(H // 2):
            for cx in range(W // 2):
                samples = [raw[(cy * ys + dy) * cw + cx * xs + dx] for dy in range(ys) for dx in range(xs)]
                mean = (sum(samples) + len(samples) // 2) // len(samples)
                out.append(video(mean, 224))
    open(f"mjpeg-{name}-64x48.expected.i420", "wb").write(out)

yuyv = open("yuyv-64x48-stride160.raw", "rb").read()
rows = [yuyv[r * 160:r * 160 + 2 * W] for r in range(H)]
out = bytearray(row[2 * x] for row in rows for x in range(W))
for offset in (1, 3):
    for cy in range(H // 2):
        top, bottom = rows[2 * cy], rows[2 * cy + 1]
        out += bytes((top[4 * cx + offset] + bottom[4 * cx + offset] + 1) // 2 for cx in range(W // 2))
open("yuyv-64x48.expected.i420", "wb").write(out)
