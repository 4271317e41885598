#!/usr/bin/env python3
"""VP8 simulcast temporal layers on a shaped link (issue 30, docs/protocol.md "VP8 temporal
layers"): Chromium sends each VP8 simulcast encoding with temporal layers (L1T3), and the server
lowers a subscriber's frame rate before its layer. In the network lab (`ClientServerLab`), a
Chromium publisher (its uplink unshaped) sends its numbered test pattern (640×360, random blocks under the numbers) as a VP8
simulcast camera (rid h = camera_big 640×360, l = camera_small 160×90); a second Chromium window
subscribes to camera_big (wider than camera_small's 160: Chromium may lower the size it sends under
CPU load, the track's `contentHint` 'motion' keeping its frame rate). Unlimited for 8 s: the frame rate, packets and bitrate it receives are
measured. Then the tbf on the server's side limits what the browsers receive to 95 % of that
bitrate (packet overhead included): a subscriber held on camera_big at full rate would overflow it,
and camera_big at TL0 and TL1 (about 60 % of it in libwebrtc's rate split) fits. Checked: within
30 s, a 4 s window in which the subscriber decodes camera_big frames at no more than 75 % of the
unlimited frame rate and receives fewer packets a second, the frame numbers read from the pixels
increasing (no decode error: a frame decoded from a dropped reference would not be readable);
then unlimited again, the full frame rate comes back within 30 s. The figures and the subscriber's
`didSwitchLayer` events are printed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, run_browser_lab_test, wait_until  # noqa: E402
from test_browser_h264 import INBOUND_JS, PATTERN_JS, numbers  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402
from test_browser_vp9_svc import subscribe  # noqa: E402

CHANNEL = "vp8temporal"
WAIT = 30
# The link, as a share of what camera_big at its full frame rate takes.
LINK_SHARE = float(os.environ.get("VP8_TEMPORAL_LINK_SHARE", "0.95"))

# The numbered pattern with random blocks under its code band each frame: the grey pattern alone
# costs VP8 ~75 kbit/s at 640×360, too little for its temporal layers to matter; with the blocks
# the encoder spends its full target.
NOISY_PATTERN_JS = PATTERN_JS.replace("  n = (n + 1) & 0xFFFFFF;", """  for (let i = 0; i < 300; i++) {
    g.fillStyle = `rgb(${Math.random() * 255 | 0},${Math.random() * 255 | 0},${Math.random() * 255 | 0})`;
    g.fillRect(Math.random() * canvas.width | 0, cellH * 3 + (Math.random() * (canvas.height - cellH * 3) | 0), 16, 16);
  }
  n = (n + 1) & 0xFFFFFF;""") + """
// A loaded machine makes Chromium lower what it sends: the size rather than the frame rate, which
// is what this test measures.
window.patternTrack.contentHint = 'motion';
"""
assert NOISY_PATTERN_JS.count("n = (n + 1)") == 1

# Samples the subscribe connection's inbound video every 250 ms into window.samples.
SAMPLER_JS = """
window.samples = [];
const sample = async () => {
  try {
    const {subscribe} = await window.ch.getStats();
    let video = null;
    subscribe?.forEach((r) => {
      if (r.type === 'inbound-rtp' && r.kind === 'video' && (!video || (r.framesDecoded || 0) > (video.framesDecoded || 0))) video = r;
    });
    if (video) window.samples.push({t: Date.now() / 1000, frames: video.framesDecoded || 0, packets: video.packetsReceived || 0,
                                    bytes: video.bytesReceived || 0, width: video.frameWidth || 0,
                                    freezes: video.freezeCount || 0, frozen: video.totalFreezesDuration || 0});
  } catch (e) { console.log('getStats: ' + e); }
  setTimeout(sample, 250);
};
sample();
return true;
"""

# The publisher's outbound video per rid: the scalability mode Chromium reports and what it sends.
OUTBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({publish}) => {
  const out = {};
  publish?.forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'video') out[r.rid ?? '-'] = {mode: r.scalabilityMode ?? null, fps: r.framesPerSecond ?? null, width: r.frameWidth || 0};
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


def rates(samples, start, end):
    """Frames, packets and bits a second between the first sample at or after `start` and the last
    at or before `end`, the width of the last, and the freeze seconds added; None with < 2 samples."""
    window = [s for s in samples if start <= s["t"] <= end]
    if len(window) < 2 or window[-1]["t"] - window[0]["t"] < 0.5:
        return None
    first, last = window[0], window[-1]
    seconds = last["t"] - first["t"]
    return {"fps": (last["frames"] - first["frames"]) / seconds, "pps": (last["packets"] - first["packets"]) / seconds,
            "bps": (last["bytes"] - first["bytes"]) * 8 / seconds, "width": last["width"],
            "widths": sorted({s["width"] for s in window}), "frozen": last["frozen"] - first["frozen"], "t": first["t"]}


def timeline(viewer, since):
    """Prints the subscriber's frames/s, packets/s, kbit/s and widths per second since `since`, and its layer switches."""
    samples = viewer.run("return window.samples")
    t = since
    while t < time.time() - 1:
        window = rates(samples, t, t + 1)
        if window:
            print("  %+5.1f s: %4.1f fps %4.0f pps %5.0f kbit/s widths %s" % (t - since, window["fps"], window["pps"], window["bps"] / 1000, window["widths"]))
        t += 1
    print(f"  layer switches: {[e['args'] for e in viewer.events() if e['name'] == 'didSwitchLayer']}")


def run(lab, server, driver, bot):
    publisher = Tab.joined(driver, server, "the publisher", CHANNEL, "alice", JOIN_JS)
    publisher.run(NOISY_PATTERN_JS)
    published = publisher.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', simulcast: true}]);
      return {id: track.id, layers: track.info?.layers?.map((l) => [l.rid, l.desc, l.width]) ?? []};
    """)
    expect(published["ok"], f"the publisher published a simulcast camera ({published.get('error', 'ok')})")
    camera = published["value"]
    expect(camera["layers"] == [["h", "camera_big", 640], ["l", "camera_small", 160]], f"two VP8 layers announced ({camera['layers']})")

    viewer = Tab.joined(driver, server, "the subscriber", CHANNEL, "viewer", JOIN_JS, new_window=True)
    subscribe(viewer, camera["id"], "camera_big", "camera_big")
    viewer.run(SAMPLER_JS)
    viewer.wait_value(lambda: numbers(viewer), lambda n: len(n) >= 30, "30 frame numbers read", timeout=WAIT)
    outbound = publisher.run_async(OUTBOUND_JS)
    print(f"the publisher's encodings: {outbound}")
    time.sleep(8)
    now = time.time()
    full = rates(viewer.run("return window.samples"), now - 5, now)
    # camera_big: wider than camera_small's 160 (Chromium may send it smaller than 640 under load).
    expect(full and full["width"] > 160 and full["fps"] >= 15, f"camera_big decoded on the unlimited link ({full})")
    ok("unlimited: %.1f frames/s, %.0f packets/s, %.0f kbit/s, %d wide" % (full["fps"], full["pps"], full["bps"] / 1000, full["width"]))

    # What arrives, with the RTP, SRTP, UDP and IP bytes bytesReceived leaves out (~50 a packet).
    link = int(LINK_SHARE * (full["bps"] + full["pps"] * 50 * 8))
    limited_at = time.time()
    lab.limit(link)
    found = [None]

    def lowered():
        samples = viewer.run("return window.samples")
        now = time.time()
        window = rates(samples, now - 4, now)
        if window and now - 4 >= limited_at and min(window["widths"]) > 160 and 3 <= window["fps"] <= 0.75 * full["fps"] \
                and window["pps"] < full["pps"]:
            found[0] = (window, now)
            return True
        return False
    try:
        wait_until(lowered, f"a 4 s window of camera_big frames (wider than 160) at <= 75 % of {full['fps']:.1f} frames/s on a {link // 1000} kbit/s link",
                   timeout=WAIT, interval=0.5)
    finally:
        timeline(viewer, limited_at)
    window, window_end = found[0]
    read = [f for f in (viewer.run("return window.readFrames;") or []) if f["n"] is not None and f["w"] > 160]
    during = numbers(viewer)
    expect(during == sorted(during), f"frame numbers in order throughout ({during[:3]}…{during[-3:]})")
    switches = [e["args"] for e in viewer.events() if e["name"] == "didSwitchLayer"]
    ok("limited to %d kbit/s: %.2f s later a 4 s window at %.1f frames/s (%.0f %% of unlimited), %.0f packets/s (%.0f %%), %.0f kbit/s,"
       " widths %s, %.2f s frozen; %d camera_big frames read, all numbers in order"
       % (link // 1000, window["t"] - limited_at, window["fps"], 100 * window["fps"] / full["fps"], window["pps"],
          100 * window["pps"] / full["pps"], window["bps"] / 1000, window["widths"], window["frozen"], len(read)))
    print(f"  layer switches seen by the subscriber: {switches}")
    print(f"  the tbf: {lab.queue_statistics().strip().splitlines()[0:3]}")

    back_at = time.time()
    lab.unlimit()

    def restored():
        now = time.time()
        window = rates(viewer.run("return window.samples"), now - 2, now)
        return window and now - 2 >= back_at and window["width"] > 160 and window["fps"] >= 0.85 * full["fps"]
    wait_until(restored, f"camera_big frames at >= 85 % of {full['fps']:.1f} frames/s again after the link's return", timeout=WAIT, interval=0.5)
    after = numbers(viewer)
    expect(after == sorted(after), "frame numbers in order after the return")
    ok("unlimited again: full frame rate back %.2f s after the link's return, numbers in order" % (time.time() - back_at))


def main():
    return run_browser_lab_test("VP8 simulcast temporal layers under a shaped link", run, CHANNEL, "tone",
                                ("--video", "none", "--no-subscribe", "--stats-interval", "5"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
