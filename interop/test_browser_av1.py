#!/usr/bin/env python3
"""AV1 between Chromium and the Swift SDK through the SFU (av1-rtp-spec, one layer). The Swift
participant (`srtc join --video-codec av1 --desc screen`) publishes its test pattern as one AV1
stream (libaom real-time) with L1T1 Dependency Descriptors, which the server reads as it reads a
browser's; the browser, joined with `preferredVideoCodec: 'av1'`, publishes a canvas camera in AV1.
Checks: the tracks are announced with `codec: "AV1"`; a second browser decodes the browser's camera
(inbound codec video/AV1) and reads its frame numbers in order; the browser decodes the Swift
participant's AV1 (video/AV1, 640 wide) and reads its frame numbers in order; the Swift
participant decodes the browser's AV1 with dav1d and reads the frame numbers from the pixels
(its `pattern #N` statistics), increasing.

The browsers and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test, wait_until  # noqa: E402
from test_browser_h264 import PATTERN_JS, subscribe_and_read  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

CHANNEL = "av1room"
WAIT = 45


def bot_pattern_numbers(bot, uid, desc):
    """The frame numbers the Swift participant read from `uid/desc` (its statistics lines)."""
    found = []
    for line in bot.read_log().splitlines():
        if line.strip().startswith(f"{uid}/{desc}:"):
            match = re.search(r"pattern #(\d+)", line)
            if match:
                found.append(int(match.group(1)))
    return found


def run(server, driver, bot):
    tab = Tab.joined(driver, server, "the browser", CHANNEL, "browser", JOIN_JS, {"preferredVideoCodec": "av1"})
    tab.run(PATTERN_JS)
    published = tab.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big'}]);
      return {id: track.id, codec: track.info?.codec ?? null};
    """)
    expect(published["ok"], f"the browser published its numbered camera ({published.get('error', 'ok')})")
    expect((published["value"]["codec"] or "").lower() == "av1", f"the browser's camera is published as AV1 ({published['value']})")

    viewer = Tab.joined(driver, server, "the second browser", CHANNEL, "viewer", JOIN_JS, new_window=True)
    camera = viewer.wait_remote_track("browser", "video", timeout=WAIT)
    expect((camera["codec"] or "").lower() == "av1", f"the second browser sees the camera announced as AV1 ({camera})")
    subscribe_and_read(viewer, camera["id"], "the browser's camera", codec="av1")

    tab.focus()
    video = tab.wait_remote_track("swiftbot", "video", timeout=WAIT)
    expect((video["codec"] or "").lower() == "av1" and not video["layers"],
           f"the Swift participant's video is announced as one AV1 stream ({video})")
    subscribe_and_read(tab, video["id"], "the Swift participant's AV1 video", width=640, codec="av1")

    frames, _ = bot.wait_stats("browser", "camera_big", lambda s: s[0] > 20, "the Swift participant decoding the browser's AV1", WAIT)
    wait_until(lambda: len(set(bot_pattern_numbers(bot, "browser", "camera_big"))) >= 5,
               "the Swift participant reading 5 frame numbers from the browser's AV1", WAIT, 0.5)
    read = bot_pattern_numbers(bot, "browser", "camera_big")
    expect(read == sorted(read), f"the Swift participant's frame numbers increase ({read[:5]}…{read[-5:]})")
    ok(f"the Swift participant decodes the browser's AV1 camera ({frames} frames, pattern numbers {read[0]}…{read[-1]})")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("AV1 between Chromium, a second browser and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--video-codec", "av1", "--desc", "screen", "--size", "640x360", "--audio", "none",
                                 "--duration", "120", "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
