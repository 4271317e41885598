#!/usr/bin/env python3
"""AV1 SVC through the SFU (av1-rtp-spec, Dependency Descriptor in Appendix A): the checks of
test_browser_vp9_svc.py (`run_svc`) with AV1. A Chromium publisher, joined with
`preferredVideoCodec: 'av1'`, sends its numbered test pattern (a 1280×720 canvas) as one AV1 stream
with `scalabilityMode: 'L3T3_KEY'` (spatial layers camera_big 1280×720, camera_medium 640×360,
camera_small 320×180) and the Dependency Descriptor header extension. Two Chromium subscribers,
each in a window of its own, ask for `camera_big` and `camera_small`: each must decode AV1
(`inbound-rtp` codec video/AV1) at its own size (`frameWidth` 1280 and 320) and read the frame
numbers from the pixels in order, and the small one must receive fewer bytes than the big one over
the same seconds (both printed). Then the small subscriber switches up to camera_big and back down
(`setLayer`): it must decode each size in turn, with frame numbers that keep increasing across both
switches, every frame shown readable, no run of more than 30 frame numbers missing and at most
a second of freezes. A subscriber that joined with `videoCodecs: ['vp8']`
cannot decode the camera: its subscribe gets `subscription_ended` (`codec_unsupported`) and no
video arrives. A Swift SDK participant (`srtc join --layer camera_big --record DIR`) subscribes
to camera_big too: it decodes the key pictures' three spatial layers and then the upper layer
alone with dav1d and records 1280×720 frames whose numbers increase.

The browsers and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_browser_vp9_svc import main_with_swift_subscriber  # noqa: E402

CHANNEL = "av1room"


def main():
    return main_with_swift_subscriber(__file__, "av1", CHANNEL)


if __name__ == "__main__":
    sys.exit(main())
