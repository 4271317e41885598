#!/usr/bin/env python3
"""Chromium subscribes to the Swift SDK's scalable VP9 (issue 30): the checks of
test_browser_av1_sdk_svc.py with VP9. The Swift participant (`srtc join --video-codec vp9`, its
default camera_big: two layers) publishes its test pattern as one VP9 stream of two spatial and
three temporal layers (L2T3_KEY, libvpx SVC) with RFC 9628 payload descriptors in non-flexible
mode and the scalability structure on key pictures. The browser subscribes at camera_big and
decodes video/VP9 640 wide with the frame numbers in order; switched to camera_small it decodes
the lower spatial layer, 320 wide, the numbers going on from where they were.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_av1_sdk_svc import WAIT, run  # noqa: E402

CHANNEL = "vp9svcsdk"


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("Chromium decoding the Swift SDK's VP9 L2T3_KEY",
                                lambda server, driver, bot: run(server, driver, bot, codec="vp9", channel=CHANNEL), CHANNEL, "swiftbot",
                                ("--video-codec", "vp9", "--size", "640x360", "--audio", "none", "--duration", "120",
                                 "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
