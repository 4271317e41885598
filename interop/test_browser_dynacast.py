#!/usr/bin/env python3
"""Dynacast: the server tells a publisher which of its layers anyone receives (`layers_needed`),
and the web SDK (`dynacast`, on by default) turns the others off with `RTCRtpSender.setParameters`
(`active: false`). A Chromium publisher sends its numbered test pattern (1280×720) as a VP8
simulcast camera (rids h = camera_big, l = camera_small). One Chromium subscriber watches
camera_big (the publisher is told `["camera_big"]`, `h` sends, frames decode 1280 wide), then
camera_small only: the publisher is told `["camera_small"]` and the `h` encoding's `outbound-rtp`
bytes stop growing while `l`'s grow and the subscriber decodes 320 wide (frame numbers read from
the pixels, in order); then camera_big again: `h` sends again within a second of that `set_layer`
(issue 30: a layer comes back within one second of a subscriber needing it; the seconds to `h`'s
bytes growing are printed) and frames decode 1280 wide.

The browsers and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_test, wait_until  # noqa: E402
from test_browser_h264 import READER_JS  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402
from test_browser_vp9_svc import BIG_PATTERN_JS, frames, wait_size  # noqa: E402

CHANNEL = "dynacastroom"
WAIT = 45

# Bytes sent per rid on the publish connection.
OUTBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({publish}) => {
  const out = {};
  publish?.forEach((r) => { if (r.type === 'outbound-rtp' && r.kind === 'video') out[r.rid ?? '-'] = r.bytesSent || 0; });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


def growth(tab, seconds):
    """Bytes each rid sent over `seconds`."""
    before = tab.run_async(OUTBOUND_JS)
    time.sleep(seconds)
    after = tab.run_async(OUTBOUND_JS)
    return {rid: after.get(rid, 0) - before.get(rid, 0) for rid in after}


def needed(tab):
    """The layers of the last `didUpdateLayersNeeded` the publisher got, or None."""
    events = [e for e in tab.events() if e["name"] == "didUpdateLayersNeeded"]
    return events[-1]["args"][0]["layers"] if events else None


def watched_only(publisher, viewer, layer, width, mime="video/vp8"):
    """`viewer` decodes `layer` `width` wide, frame numbers in order, and the publisher is told that
    only `layer` is needed; returns what it was told and the bytes each rid sent over 3 s after a
    second more (what was on its way has left)."""
    _, read = wait_size(viewer, width, layer, mime)
    expect(read == sorted(read), f"{layer}: frame numbers in order ({read[:3]}…{read[-3:]})")
    layers = publisher.wait_value(lambda: needed(publisher), lambda l: l == [layer], f"layers_needed [{layer}]", timeout=WAIT)
    time.sleep(1)
    sent = growth(publisher, 3)
    print(f"  bytes sent in 3 s with only {layer} watched: {sent}")
    return layers, sent


def layer_back(publisher, viewer, camera, layer, rid, width):
    """Asks for `layer`: rid `rid` must send again within a second (issue 30), and the viewer decode
    `width` wide with the frame numbers in order."""
    before = publisher.run_async(OUTBOUND_JS).get(rid, 0)
    asked = time.time()
    switched = viewer.call(f"await ch.setLayer('{camera['id']}', '{layer}');")
    expect(switched["ok"], f"the subscriber asked for {layer} ({switched.get('error', 'ok')})")
    wait_until(lambda: publisher.run_async(OUTBOUND_JS).get(rid, 0) > before, f"rid {rid} sending again", timeout=WAIT, interval=0.05)
    back = time.time() - asked
    expect(back <= 1.0, f"rid {rid} sends again within a second of the subscriber asking for {layer} ({back:.2f} s)")
    count = len(frames(viewer))
    read = viewer.wait_value(lambda: [f["n"] for f in frames(viewer)[count:] if f["w"] == width and f["n"] is not None],
                             lambda n: len(n) >= 20, f"20 frames at {width}", timeout=WAIT)
    expect(read == sorted(read), f"{layer}: frame numbers in order ({read[:3]}…{read[-3:]})")
    ok(f"rid {rid} is back {back:.2f} s after set_layer {layer}; the subscriber decodes {width} wide, numbers in order")


def run(server, driver):
    # No option: dynacast is on by default (docs/sdk-web.md).
    publisher = Tab.joined(driver, server, "the publisher", CHANNEL, "alice", JOIN_JS)
    publisher.run(BIG_PATTERN_JS)
    published = publisher.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', simulcast: true}]);
      return {id: track.id, layers: track.info?.layers?.map((l) => l.desc) ?? []};
    """)
    expect(published["ok"], f"the publisher published a simulcast camera ({published.get('error', 'ok')})")
    camera = published["value"]

    # First the big layer: h must be able to send (and does).
    viewer = Tab.joined(driver, server, "the subscriber", CHANNEL, "viewer", JOIN_JS, new_window=True)
    subscribed = viewer.call(f"await ch.subscribe('{camera['id']}', {{layer: 'camera_big'}});")
    expect(subscribed["ok"], f"the subscriber subscribed to camera_big ({subscribed.get('error', 'ok')})")
    reader = viewer.run_async(READER_JS, camera["id"])
    expect(reader["ok"], f"the subscriber plays the camera ({reader.get('error', 'ok')})")
    stats, read = wait_size(viewer, 1280, "camera_big", "video/vp8")
    expect(read == sorted(read), f"camera_big: frame numbers in order ({read[:3]}…{read[-3:]})")
    layers = publisher.wait_value(lambda: needed(publisher), lambda l: l == ["camera_big"], "layers_needed [camera_big]", timeout=WAIT)
    sent = growth(publisher, 2)
    print(f"  bytes sent in 2 s with camera_big watched: {sent}")
    expect(sent.get("h", 0) > 0, f"rid h sends while camera_big is watched ({sent})")
    ok(f"the publisher is told {layers}; the subscriber decodes 1280×{stats['height']}")

    # Only the small layer: h stops.
    switched = viewer.call(f"await ch.setLayer('{camera['id']}', 'camera_small');")
    expect(switched["ok"], f"the subscriber asked for camera_small ({switched.get('error', 'ok')})")
    layers, sent = watched_only(publisher, viewer, "camera_small", 320)
    expect(sent.get("h", 1) == 0 and sent.get("l", 0) > 0, f"the big encoding sends nothing, the small one sends ({sent})")
    ok(f"told {layers}: rid h's outbound-rtp bytes did not grow in 3 s while rid l's did")

    # The big layer again: h is back.
    layer_back(publisher, viewer, camera, "camera_big", "h", 1280)


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("Dynacast between Chromium participants", run, wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
