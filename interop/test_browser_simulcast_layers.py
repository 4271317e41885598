#!/usr/bin/env python3
"""Three simulcast layers and dynacast per layer (issue 30). A Chromium publisher sends its
numbered test pattern (1280×720) as a VP8 simulcast camera: the web SDK sends three encodings, rid
h = camera_big 1280×720, m = camera_medium 640×360, l = camera_small 320×180 (as LiveKit does from
960 pixels up), and announces those layers. One Chromium subscriber watches camera_small only: the
publisher is told `["camera_small"]` and the `outbound-rtp` bytes of rids h and m stop growing
while l's grow; it decodes 320 wide (frame numbers read from the pixels, in order). Then
camera_medium: m sends again within a second of that `set_layer`, the subscriber decodes 640
wide; then camera_big: h within a second, 1280 wide (the seconds are printed).

Then a VP9 SVC camera (`L3T3_KEY`, spatial layers camera_big, camera_medium, camera_small) in
another channel: with one subscriber on camera_small, dynacast sends the one encoding as `L1T3`
at a quarter of the size (`scaleResolutionDownBy` 4: the publisher's `outbound-rtp` is 320 wide)
and the subscriber decodes 320 wide; asked for camera_big, the encoding is `L3T3_KEY` at full
size again within a second (`outbound-rtp` 1280 wide) and the subscriber decodes 1280 wide, the
frame numbers in order throughout.

The browsers and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_test, wait_until  # noqa: E402
from test_browser_dynacast import layer_back, watched_only  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402
from test_browser_vp9_svc import BIG_PATTERN_JS, frames, publish_scalable, subscribe  # noqa: E402
from test_browser_vp9_svc import OUTBOUND_JS as SVC_OUTBOUND_JS  # noqa: E402

WAIT = 45

# The publisher's video sender: each encoding's rid, scale, mode and whether it is active.
ENCODINGS_JS = """
const track = window.ch.localTracks.find((t) => t.kind === 'video');
return track.sender.getParameters().encodings.map((e) => ({rid: e.rid ?? null, scale: e.scaleResolutionDownBy ?? 1,
  mode: e.scalabilityMode ?? null, active: e.active}));
"""


def publish_simulcast_pattern(publisher, name):
    """Publishes the page's `window.patternTrack` as a simulcast camera_big (the web SDK picks the
    encodings); returns {id, layers: [[rid, desc, width, height], …]}."""
    published = publisher.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', simulcast: true}]);
      return {id: track.id, layers: track.info?.layers?.map((l) => [l.rid, l.desc, l.width, l.height]) ?? []};
    """)
    expect(published["ok"], f"{name} published a simulcast camera ({published.get('error', 'ok')})")
    return published["value"]


def run_simulcast(server, driver):
    channel = "threelayers"
    publisher = Tab.joined(driver, server, "the publisher", channel, "alice", JOIN_JS)
    publisher.run(BIG_PATTERN_JS)
    camera = publish_simulcast_pattern(publisher, "the publisher")
    expect(camera["layers"] == [["h", "camera_big", 1280, 720], ["m", "camera_medium", 640, 360], ["l", "camera_small", 320, 180]],
           f"three layers announced: h 1280×720, m 640×360, l 320×180 ({camera['layers']})")
    encodings = publisher.run(ENCODINGS_JS)
    expect([(e["rid"], e["scale"]) for e in encodings] == [("h", 1), ("m", 2), ("l", 4)], f"three encodings sent ({encodings})")
    ok(f"the camera is sent as three encodings {[(e['rid'], e['scale']) for e in encodings]}, layers {camera['layers']}")

    viewer = Tab.joined(driver, server, "the subscriber", channel, "viewer", JOIN_JS, new_window=True)
    subscribe(viewer, camera["id"], "camera_small", "camera_small")
    layers, sent = watched_only(publisher, viewer, "camera_small", 320)
    expect(sent.get("h", 1) == 0 and sent.get("m", 1) == 0 and sent.get("l", 0) > 0,
           f"the big and medium encodings send nothing, the small one sends ({sent})")
    inactive = [e["rid"] for e in publisher.run(ENCODINGS_JS) if not e["active"]]
    expect(inactive == ["h", "m"], f"rids h and m are inactive at the sender ({inactive})")
    ok(f"told {layers}: rids h and m inactive, their outbound-rtp bytes did not grow in 3 s while l's did")

    layer_back(publisher, viewer, camera, "camera_medium", "m", 640)
    layer_back(publisher, viewer, camera, "camera_big", "h", 1280)


def svc_outbound(publisher):
    return publisher.run_async(SVC_OUTBOUND_JS)


def run_svc(server, driver):
    channel = "svcdynacast"
    publisher = Tab.joined(driver, server, "the SVC publisher", channel, "carol", JOIN_JS, {"preferredVideoCodec": "vp9"}, new_window=True)
    camera = publish_scalable(publisher, "vp9")
    viewer = Tab.joined(driver, server, "the SVC subscriber", channel, "svcviewer", JOIN_JS, new_window=True)
    subscribe(viewer, camera["id"], "camera_small", "camera_small")
    shape = publisher.wait_value(lambda: publisher.run(ENCODINGS_JS), lambda e: e and e[0]["mode"] == "L1T3" and e[0]["scale"] == 4,
                                 "the encoding sent as L1T3 at a quarter size", timeout=WAIT)
    sent = publisher.wait_value(lambda: svc_outbound(publisher), lambda s: s.get("width") == 320, "outbound-rtp 320 wide", timeout=WAIT)
    watched_only(publisher, viewer, "camera_small", 320, "video/vp9")
    ok(f"only camera_small needed: the encoding is {shape[0]['mode']} at 1/{shape[0]['scale']} ({sent}); the subscriber decodes 320 wide")

    asked = time.time()
    switched = viewer.call(f"await ch.setLayer('{camera['id']}', 'camera_big');")
    expect(switched["ok"], f"the subscriber asked for camera_big ({switched.get('error', 'ok')})")
    wait_until(lambda: svc_outbound(publisher).get("width") == 1280, "outbound-rtp 1280 wide again", timeout=WAIT, interval=0.05)
    back = time.time() - asked
    encodings = publisher.run(ENCODINGS_JS)
    expect(encodings[0]["mode"] == "L3T3_KEY" and encodings[0]["scale"] == 1, f"the encoding is L3T3_KEY at full size again ({encodings})")
    expect(back <= 1.0, f"the big spatial layer is sent again within a second of the subscriber asking ({back:.2f} s)")
    count = len(frames(viewer))
    viewer.wait_value(lambda: [f["n"] for f in frames(viewer)[count:] if f["w"] == 1280 and f["n"] is not None],
                             lambda n: len(n) >= 20, "20 frames at 1280", timeout=WAIT)
    numbers = [f["n"] for f in frames(viewer) if f["n"] is not None]
    expect(numbers == sorted(numbers), f"frame numbers in order throughout ({numbers[:3]}…{numbers[-3:]})")
    ok(f"camera_big asked for: L3T3_KEY at 1280 wide {back:.2f} s later; the subscriber decodes 1280 wide, numbers in order")


def run(server, driver):
    run_simulcast(server, driver)
    run_svc(server, driver)


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("Three simulcast layers and per-layer dynacast in Chromium", run, wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
