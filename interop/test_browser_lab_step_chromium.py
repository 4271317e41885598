#!/usr/bin/env python3
"""Chromium as the simulcast publisher and as the subscriber on a shaped link (issue 26, docs/network.md
"The lab"): test_browser_lab_step.py's step down and pause with the camera sent by Chromium
instead of the Swift SDK.

One headless Chromium in the lab's client namespace (`ClientServerLab`) has two windows: the
publisher sends a numbered 640×360 canvas (test_browser_h264's pattern) as a VP8 simulcast camera
through the web SDK (rid h = `camera_big` 640×360, rid l = `camera_small` 160×90, dynacast on as by
default), and the subscriber window subscribes to it with `layer: 'camera_big'`. The audio is a
Swift participant's tone (`srtc join --video none` beside the server), so the audio figures are
those of a steady 50 packets a second. The kernel tbf on the server's veth end shapes what the
client namespace receives: the subscriber's media and the publisher's RTCP feedback; the
publisher's uplink is not limited.

First 60 s unlimited (the issue's unlimited call: no switch for bandwidth, every sample 640
wide). Then the phases and bounds of test_browser_lab_step.py (the issue's 2 s down, 8 s up, no
freeze over 500 ms on the small layer, the pause and resume under 150 kbit/s); on the way up the
layer comes back through dynacast (the server asks Chromium to send rid h again, then for a key
frame). Also checked: the subscriber reads the publisher's frame numbers from the pixels, every
640-wide one in order, before and after the step; the publisher's idle subscribe connection is
never taken for a silent path; and, both windows sharing one clock, each frame's delay from
capture to display: over the 300 kbit/s phase's last 3 s the lowest is within 100 ms of the
unlimited link's lowest (no standing queue in the tbf, which holds 200 ms: the delay-based side
of the estimate reacted). About 105 s.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, run_browser_lab_test  # noqa: E402
from test_browser_h264 import PATTERN_JS, READER_JS, numbers  # noqa: E402
from test_browser_lab_step import CHANNEL, PLAY_JS, SETUP_JS, WAIT_SECONDS, Recording, dump, pause, step, wait_for  # noqa: E402
from test_browser_media import JOIN_JS  # noqa: E402
from test_browser_simulcast_layers import publish_simulcast_pattern  # noqa: E402
from srtc_test_support import Tab  # noqa: E402

# The pattern with its lower half grey noise of ±12 levels (as a camera's sensor adds), a different one each frame (six made once, each drawn
# after another): a plain pattern costs Chromium's encoder so little that 640×360 fits a
# 300 kbit/s link and no switch is due; with the noise each layer sends about its maxBitrate
# (the encoder spends what it is given on the noise, and at a small layer's rate quantizes it away
# rather than dropping frames), as a camera's picture does (capped below at 600 and 100 kbit/s, as the Swift bot's camera_big).
NOISY_PATTERN_JS = PATTERN_JS.replace("paint();\nsetInterval(paint, 33);", """
const noise = [];
for (let k = 0; k < 6; k++) {
  const tile = document.createElement('canvas');
  tile.width = canvas.width; tile.height = canvas.height / 2;
  const c = tile.getContext('2d'), image = c.createImageData(tile.width, tile.height);
  for (let i = 0; i < image.data.length; i += 4) {
    const v = 128 + Math.floor(Math.random() * 25) - 12;
    image.data[i] = v; image.data[i + 1] = v; image.data[i + 2] = v; image.data[i + 3] = 255;
  }
  c.putImageData(image, 0, 0);
  noise.push(tile);
}
// When each number was painted (Date.now(), ms): both windows run on one clock, so the subscriber's
// read time less this is the frame's delay, capture to display.
window.paintTimes = [];
const paintNoisy = () => {
  const number = n;
  paint();
  g.drawImage(noise[number % noise.length], 0, canvas.height / 2);
  window.paintTimes[number] = Date.now();
};
paintNoisy();
setInterval(paintNoisy, 33);
""")
assert NOISY_PATTERN_JS != PATTERN_JS
# Chromium's encoder otherwise shrinks a layer under CPU or bandwidth pressure (degradation
# preference "balanced"); the test reads the layers' sizes.
NOISY_PATTERN_JS += "\nwindow.patternTrack.contentHint = 'detail';\n"


# READER_JS with each frame's display time: window.readFrames = [{n, w, h, t (Date.now(), ms)}].
TIMED_READER_JS = READER_JS.replace("window.readFrames.push({n, w: video.videoWidth, h: video.videoHeight})",
                                    "window.readFrames.push({n, w: video.videoWidth, h: video.videoHeight, t: Date.now()})")
assert TIMED_READER_JS != READER_JS
UNLIMITED_SECONDS = 60  # the unlimited call
# A frame later than this over the lowest of the 2 Mbit/s phase, for all of the 300 kbit/s phase's
# last 3 s, waits in a standing queue (the tbf holds 200 ms); CoDel's judgement of a queue (RFC 8289
# §3.2), as the Swift lab's `drainedDelayMs`.
STANDING_QUEUE_MS = 100


def delays(publisher, page, start, end):
    """(width, delay ms) of every frame the subscriber showed between `start` and `end` (s)."""
    painted = publisher.run("return window.paintTimes")
    shown = page.run("return window.readFrames") or []
    return [(f["w"], f["t"] - painted[f["n"]]) for f in shown
            if f["n"] is not None and f["n"] < len(painted) and painted[f["n"]] and start * 1000 <= f["t"] <= end * 1000]


def unlimited_call(page, seconds):
    """`seconds` on an unlimited link: no switch for bandwidth, every sample 640 wide."""
    start = time.time()
    time.sleep(seconds)
    r = Recording(page)
    switches = [s for s in r.switches if s["t"] >= start and s.get("cause") == "bandwidth"]
    samples = r.between(start, time.time())
    widths = sorted({s["width"] for s in samples})
    frames = samples[-1]["frames"] - samples[0]["frames"] if len(samples) > 1 else 0
    print(f"network lab (Chromium publishing), unlimited {seconds} s: {len(switches)} bandwidth switches, {frames} frames decoded, "
          f"widths {widths}, longest gap between samples with new frames {r.worst_gap(start, time.time()):.2f} s")
    expect(not switches and widths == [640] and frames >= seconds * 15,
           f"the big layer kept for {seconds} s unlimited ({switches}, widths {widths}, {frames} frames)")
    return start


def numbered_frames(page, what, since):
    """The frame numbers the subscriber read (READER_JS, from every frame shown) after index
    `since` of its list, once 20 were read at 640 wide: increasing. Returns (numbers, next index)."""
    page.wait_value(lambda: numbers(page, 640)[since:], lambda n: len(n) >= 20,
                    f"{what}: 20 frame numbers read at 640 wide", timeout=WAIT_SECONDS)
    read = numbers(page, 640)
    found = read[since:]
    expect(all(b > a for a, b in zip(found, found[1:])), f"{what}: the publisher's frame numbers in order ({found[:10]}…)")
    return found, len(read)


def run(lab, server, driver, bot):
    publisher = Tab.joined(driver, server, "the Chromium publisher (in the client namespace)", CHANNEL, "cam", JOIN_JS)
    publisher.run(NOISY_PATTERN_JS)
    layers = publish_simulcast_pattern(publisher, "Chromium")["layers"]
    # The Swift bot's camera_big sends about 600 and 100 kbit/s; the web SDK's default caps (1.5 Mbit/s
    # and 200 kbit/s) would leave the big layer no room on the 2 Mbit/s link. Dynacast's own
    # setParameters keeps these (it changes `active` only).
    capped = publisher.call("""
      const sender = ch.localTracks.find((t) => t.kind === 'video').sender;
      const parameters = sender.getParameters();
      for (const e of parameters.encodings) e.maxBitrate = e.rid === 'h' ? 600000 : 100000;
      await sender.setParameters(parameters);
      return sender.getParameters().encodings.map((e) => [e.rid, e.maxBitrate]);
    """)
    expect(capped["ok"] and capped["value"] == [["h", 600000], ["l", 100000]],
           f"the encodings capped at 600 and 100 kbit/s ({capped.get('value', capped.get('error'))})")
    expect(layers == [["h", "camera_big", 640, 360], ["l", "camera_small", 160, 90]],
           f"two layers announced: h 640×360, l 160×90 ({layers})")

    page = Tab.joined(driver, server, "the subscriber (in the client namespace)", CHANNEL, "web", SETUP_JS, new_window=True)
    wait_for(page, "the subscriber decodes Chromium's camera_big", lambda r: r.first_width(0, 640), WAIT_SECONDS)
    playing = page.run(PLAY_JS)
    expect(playing == ["audio", "video"], f"the subscriber plays the bot's audio and Chromium's video ({playing})")
    wait_for(page, "the subscriber counts received audio samples", lambda r: r.last().get("samples") or None, WAIT_SECONDS)
    reading = page.run_async(TIMED_READER_JS, page.run("return window.tracks.video"))
    expect(reading["ok"], f"the subscriber reads frame numbers from a second video element ({reading.get('error', 'ok')})")
    publisher.console()  # what the publisher logged so far (read and dropped)
    before, _ = numbered_frames(page, "before the step", 0)
    ok(f"the subscriber decodes Chromium's 640-wide frames, numbers {before[0]}…{before[-1]} in order")
    unlimited_at = unlimited_call(page, UNLIMITED_SECONDS)
    times = step(lab, page)
    after, _ = numbered_frames(page, "after the step", len(numbers(page, 640)))
    every = numbers(page, 640)
    expect(after[0] > before[-1] and all(b > a for a, b in zip(every, every[1:])),
           f"the numbers went on after the step, every 640-wide frame in order ({before[-1]} → {after[0]}, {len(every)} read)")
    ok(f"after the step the subscriber decodes Chromium's 640-wide frames again, numbers {after[0]}…{after[-1]} in order")
    # The publisher's subscribe connection carries nothing but answers to its consent checks: no
    # path to watch (path-monitor.js), so no "received nothing" check every few seconds.
    idle = [line for line in publisher.console() if "[srtc info] the subscribe transport received nothing" in line]
    expect(not idle, f"the publisher's idle subscribe connection was never taken for a silent path ({len(idle)} times)")
    # The delay-based side of the estimate: no standing queue once the small layer fits.
    wide = [d for w, d in delays(publisher, page, unlimited_at, times["narrow_at"]) if w == 640]
    narrow = delays(publisher, page, times["narrow_at"], times["wide_again_at"])
    late = [d for _, d in delays(publisher, page, times["wide_again_at"] - 3, times["wide_again_at"])]
    expect(wide and late, f"frames read with their delays (unlimited and 2 Mbit/s: {len(wide)}, the last 3 s at 300 kbit/s: {len(late)})")
    base = min(wide)
    print(f"  frame delay, capture to display (one browser's clock): unlimited and 2 Mbit/s median {sorted(wide)[len(wide) // 2]:.0f} ms, "
          f"lowest {base:.0f}; 300 kbit/s worst {max(d for _, d in narrow):.0f} ms; its last 3 s median {sorted(late)[len(late) // 2]:.0f}, "
          f"lowest {min(late):.0f} ms ({len(late)} frames, widths {sorted({w for w, _ in narrow})})")
    expect(min(late) - base < STANDING_QUEUE_MS, f"no standing queue at 300 kbit/s's end: its lowest delay {min(late):.0f} ms "
           f"within {STANDING_QUEUE_MS} ms of the unlimited link's lowest {base:.0f} ms")
    pause(lab, page)


def main():
    started = time.time()
    status = run_browser_lab_test("browser lab step down and pause, Chromium publishing", run, CHANNEL, "tone",
                                  ("--video", "none", "--no-subscribe", "--stats-interval", "5"),
                                  wait_seconds=WAIT_SECONDS, dump=dump)
    print(f"({time.time() - started:.0f} s in all)")
    return status


if __name__ == "__main__":
    sys.exit(main())
