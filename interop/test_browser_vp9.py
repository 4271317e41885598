#!/usr/bin/env python3
"""VP9 between two Chromium participants and the Swift SDK through the SFU (RFC 9628, profile 0):
the checks of test_browser_h264.py with VP9. The Swift participant (`srtc join --video-codec vp9`)
publishes its test pattern as a VP9 camera of two spatial layers in one stream (libvpx SVC,
L2T3_KEY: camera_small is the lower layer at half the size); the browser publishes a canvas camera
with Chromium's own codec order (VP8 first, no `preferredVideoCodec`) to a server started with
`--video-codecs vp9,vp8`, so it is published in VP9 because the server's list says so (its
`codec` in the publish response and `track_added` is VP9; `preferredVideoCodec: 'vp9'` is what
test_browser_vp9_svc.py publishes with). A second browser decodes the
browser's camera (inbound codec video/VP9) and reads its frame numbers in order; the browser
decodes the Swift participant's VP9 on both layers and reads the frame numbers; the Swift
participant decodes the browser's VP9.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_h264 import CHANNEL, WAIT, run  # noqa: E402


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("VP9 between Chromium, a second browser and the Swift SDK",
                                lambda server, driver, bot: run(server, driver, bot, codec="vp9", prefer=False), CHANNEL, "swiftbot",
                                ("--video-codec", "vp9", "--size", "640x360", "--audio", "none", "--duration", "120",
                                 "--stats-interval", "1"), server_args=("--video-codecs", "vp9,vp8"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
