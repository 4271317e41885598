#!/usr/bin/env python3
"""Chromium subscribes to the Swift SDK's scalable AV1 (issue 30). The Swift participant
(`srtc join --video-codec av1`, its default camera_big: two layers) publishes its test pattern
as one AV1 stream of two spatial and three temporal layers (L2T3_KEY, libaom's SVC controls) with
Dependency Descriptors it writes itself (av1-rtp-spec Appendix A, the structure in two-byte header
extensions). Checks: the track is announced as AV1 with layers camera_big and camera_small; the
browser subscribes at camera_big and decodes it as video/AV1 640 wide with the frame numbers in
order; switched to camera_small it decodes the lower spatial layer, 320 wide (half the size), the
numbers going on from where they were; after 1.5 s on camera_small (long enough for dynacast to
stop the upper layer at the Swift encoder; SDKDynacastTests checks that it does, this script does
not see it), switched back to camera_big it decodes 640 wide again, the numbers in order.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_h264 import numbers, subscribe_and_read  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

CHANNEL = "av1svcsdk"
WAIT = 45


def run(server, driver, bot, codec="av1", channel=CHANNEL):
    """The checks of this file's docstring for the Swift participant's `codec` (`av1` or `vp9`)."""
    name = codec.upper()
    tab = Tab.joined(driver, server, "the browser", channel, "browser", JOIN_JS)
    video = tab.wait_remote_track("swiftbot", "video", timeout=WAIT)
    expect((video["codec"] or "").lower() == codec and video["layers"] == ["camera_big", "camera_small"],
           f"the Swift participant's camera is announced as {name} with two layers ({video})")
    big = subscribe_and_read(tab, video["id"], f"the Swift participant's {name} camera_big", layer="camera_big", width=640, codec=codec)

    switched = tab.call(f"await ch.setLayer('{video['id']}', 'camera_small');")
    expect(switched["ok"], f"switched to camera_small ({switched.get('error', 'ok')})")
    tab.wait_value(lambda: numbers(tab, 320), lambda n: len(n) >= 15, "15 frame numbers read on camera_small (320 wide)", timeout=WAIT)
    small = numbers(tab, 320)
    expect(small == sorted(small) and small[0] >= big[-1], f"camera_small numbers continue ({small[:5]}…{small[-5:]})")
    ok(f"the browser decodes the Swift participant's {name} camera_small spatial layer: numbers {small[0]}…{small[-1]}")

    # Nobody receives camera_big now: dynacast pauses the upper spatial layer at the Swift encoder
    # (its AV1 descriptors then say only S0's decode targets are active). Asked for again, it comes
    # back at a key picture and the browser decodes 640 wide again, the numbers going on.
    time.sleep(1.5)
    asked = time.monotonic()
    back = tab.call(f"await ch.setLayer('{video['id']}', 'camera_big');")
    expect(back["ok"], f"switched back to camera_big ({back.get('error', 'ok')})")
    tab.wait_value(lambda: [n for n in numbers(tab, 640) if n > small[-1]], lambda n: len(n) >= 10,
                   "10 frame numbers read on camera_big again (640 wide)", timeout=WAIT)
    again = [n for n in numbers(tab, 640) if n > small[-1]]
    expect(again == sorted(again), f"camera_big numbers after the pause are in order ({again[:5]}…{again[-5:]})")
    ok(f"the browser decodes the Swift participant's {name} camera_big again: numbers {again[0]}…{again[-1]}, "
       f"10 frames {time.monotonic() - asked:.1f} s after asking")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("Chromium decoding the Swift SDK's AV1 L2T3_KEY", run, CHANNEL, "swiftbot",
                                ("--video-codec", "av1", "--size", "640x360", "--audio", "none", "--duration", "120",
                                 "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
