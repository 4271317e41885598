#!/usr/bin/env python3
"""Chromium decodes the Swift SDK's VP9 simulcast: the checks of test_browser_vp9.py with the
Swift participant started with `srtc join --video-codec vp9 --video-scalability simulcast`, so its
two-layer camera goes out as two VP9 encodings (rids h and l, each one libvpx encoder writing a
one-layer stream) instead of one L2T3_KEY stream. The browser decodes camera_big at 640 wide and,
after `setLayer`, camera_small at the simulcast layer's 160 (an SVC lower layer would be 320),
frame numbers in order across the switch; a second browser and the Swift participant decode the
browser's VP9 camera.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_h264 import CHANNEL, WAIT, run  # noqa: E402


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("VP9 simulcast from the Swift SDK to Chromium",
                                lambda server, driver, bot: run(server, driver, bot, codec="vp9", small_width=160), CHANNEL, "swiftbot",
                                ("--video-codec", "vp9", "--video-scalability", "simulcast", "--size", "640x360", "--audio", "none",
                                 "--duration", "120", "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
