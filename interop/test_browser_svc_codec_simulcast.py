#!/usr/bin/env python3
"""VP9 and AV1 sent as simulcast (issue 30: "simulcast of VP9/AV1 works too"), not as one scalable
stream. For each codec, a Chromium publisher joined with `preferredVideoCodec` set to it sends its
numbered test pattern (a 1280×720 canvas) as a simulcast camera (`simulcast: true`: rid h =
camera_big 1280×720, rid m = camera_medium 640×360, rid l = camera_small 320×180, each encoding in
that codec: `outbound-rtp` codec per rid). Two Chromium subscribers, each in a window of its own, ask for camera_big and
camera_small: each decodes the codec (`inbound-rtp` codec) at its own size (`frameWidth` 1280 and
320) with the frame numbers read from the pixels in order, and the small one receives fewer bytes
over the same seconds. Then the small subscriber switches up to camera_big and back down
(`setLayer`; with dynacast on, rid l is paused while nobody takes it and must come back): it
decodes each size in turn, the numbers increasing across both switches, every frame shown
readable and no freeze beyond a second (the server switches at the target encoding's key frame; an AV1 simulcast is forwarded
without Dependency Descriptors, docs/protocol.md). A last pass publishes with Chromium's own codec
order (VP8 first) to a server started with `--video-codecs vp9,vp8`: the web SDK gives the
encodings their mode once the answer names VP9, and the same checks pass.

The browsers and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402
from test_browser_vp9_svc import BIG_PATTERN_JS, bytes_over, switch_up_and_down, watch_big_and_small  # noqa: E402

WAIT = 45

# The codec and bytes of each rid the publisher sends.
OUTBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({publish}) => {
  const byId = new Map();
  publish?.forEach((r) => byId.set(r.id, r));
  const out = {};
  for (const r of byId.values()) {
    if (r.type === 'outbound-rtp' && r.kind === 'video') out[r.rid ?? '-'] = {mimeType: byId.get(r.codecId)?.mimeType ?? null, bytes: r.bytesSent || 0, width: r.frameWidth || 0};
  }
  done(out);
}).catch((e) => done({error: String(e)}));
"""


def run_simulcast(server, driver, codec, prefer=True):
    """The checks above for `codec`; without `prefer` the publisher keeps Chromium's codec order and
    the server's `--video-codecs` picks `codec` (the web SDK then sets the encodings' mode)."""
    name = codec.upper()
    mime = "video/" + codec
    channel = codec + "simulcast"
    publisher = Tab.joined(driver, server, "the publisher", channel, "alice", JOIN_JS, {"preferredVideoCodec": codec} if prefer else {})
    publisher.run(BIG_PATTERN_JS)
    published = publisher.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', simulcast: true}]);
      return {id: track.id, codec: track.info?.codec ?? null, layers: track.info?.layers?.map((l) => l.desc) ?? []};
    """)
    expect(published["ok"], f"the publisher published a simulcast camera ({published.get('error', 'ok')})")
    camera = published["value"]
    expect((camera["codec"] or "").lower() == codec and camera["layers"] == ["camera_big", "camera_medium", "camera_small"],
           f"the camera is published as {name} simulcast, layers camera_big, camera_medium and camera_small ({camera})")

    big, small = watch_big_and_small(driver, server, channel, camera["id"], mime, name)

    sent = publisher.run_async(OUTBOUND_JS)
    print(f"  publisher outbound per rid: {sent}")
    expect(all((sent.get(rid, {}).get("mimeType") or "").lower() == mime for rid in ("h", "l")),
           f"Chromium sends both encodings (rids h and l) in {name} ({sent})")
    big_bytes, small_bytes = bytes_over([big, small], 5)
    print(f"  bytes received in the same 5 s: camera_big {big_bytes}, camera_small {small_bytes} ({small_bytes / max(big_bytes, 1):.2f}×)")
    expect(0 < small_bytes < big_bytes, f"the small subscriber receives fewer bytes ({small_bytes} < {big_bytes})")

    # Up to camera_big and back down (rid l paused by dynacast meanwhile): each size in turn.
    switch_up_and_down(small, camera["id"], mime, f"{name} simulcast")


def main():
    reexec_in_loopback_namespace(__file__)
    # The last pass: VP9 chosen by the server's list (`--video-codecs`), not by the publisher.
    for codec, prefer, args in (("vp9", True, ()), ("av1", True, ()), ("vp9", False, ("--video-codecs", "vp9,vp8"))):
        status = run_browser_test(f"{codec.upper()} simulcast between Chromium participants" + ("" if prefer else ", chosen by --video-codecs"),
                                  lambda server, driver, codec=codec, prefer=prefer: run_simulcast(server, driver, codec, prefer),
                                  server_args=args, wait_seconds=WAIT)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
