#!/usr/bin/env python3
"""VP9 SVC through the SFU (RFC 9628): a Chromium publisher, joined with
`preferredVideoCodec: 'vp9'`, sends its numbered test pattern (a 1280×720 canvas) as one VP9
stream with `scalabilityMode: 'L3T3_KEY'` (spatial layers camera_big 1280×720, camera_medium
640×360, camera_small 320×180). Two Chromium subscribers, each in a window of its own, ask for
`camera_big` and `camera_small`: each must decode VP9 (`inbound-rtp` codec video/VP9) at its own
size (`frameWidth` 1280 and 320) and read the frame numbers from the pixels in order, and the small
one must receive fewer bytes than the big one over the same seconds (both printed). Then the small
subscriber switches up to camera_big and back down (`setLayer`): it must decode each size in turn,
with frame numbers that keep increasing across both switches and every frame shown readable (a
frame decoded from a broken reference would not be), no run of more than 30 frame numbers (a
second) missing and at most a second of `inbound-rtp` freezes (`totalFreezesDuration`) across
them. A subscriber that joined with `videoCodecs: ['vp8']` cannot decode the camera: its
subscribe gets `subscription_ended` (`codec_unsupported`) and no video arrives. A Swift SDK participant (`srtc join --layer camera_big --record DIR`) subscribes
to camera_big too: it decodes the three spatial layers of each picture with libvpx and records
1280×720 frames whose numbers increase.

The browsers and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys
import shutil
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test, wait_until, y4m_frame_numbers  # noqa: E402
from test_browser_h264 import INBOUND_JS, PATTERN_JS, READER_JS  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

CHANNEL = "vp9room"
WAIT = 45

# The numbered pattern of the H.264 test at 1280×720: Chromium gives VP9 three spatial layers only
# when the smallest is at least 135 pixels high.
BIG_PATTERN_JS = PATTERN_JS.replace("canvas.width = 640; canvas.height = 360;", "canvas.width = 1280; canvas.height = 720;")

# The publisher's outbound VP9: the scalability mode Chromium took and the size it sends.
OUTBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({publish}) => {
  let out = null;
  publish?.forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'video') out = {scalabilityMode: r.scalabilityMode ?? null, width: r.frameWidth || 0, bytes: r.bytesSent || 0, encoder: r.encoderImplementation ?? null};
  });
  done(out || {});
}).catch((e) => done({error: String(e)}));
"""


def frames(tab):
    return tab.run("return window.readFrames;") or []


def inbound(tab):
    return tab.run_async(INBOUND_JS)


def wait_size(tab, width, what, mime="video/vp9"):
    """Waits until `tab` decodes `mime` (VP9) `width` wide and has read 20 frame numbers at that width."""
    stats = tab.wait_value(lambda: inbound(tab), lambda s: s.get("width") == width and s.get("framesDecoded", 0) > 10,
                           f"{what} decoded {width} wide", timeout=WAIT)
    expect((stats.get("mimeType") or "").lower() == mime, f"{tab.name} decodes {what} as {mime} ({stats})")
    read = tab.wait_value(lambda: [f["n"] for f in frames(tab) if f["w"] == width and f["n"] is not None],
                          lambda n: len(n) >= 20, f"20 frame numbers read {width} wide", timeout=WAIT)
    return stats, read


def subscribe(tab, track_id, layer, what):
    subscribed = tab.call(f"await ch.subscribe('{track_id}', {{layer: '{layer}'}});")
    expect(subscribed["ok"], f"{tab.name} subscribed to {what} ({subscribed.get('error', 'ok')})")
    reader = tab.run_async(READER_JS, track_id)
    expect(reader["ok"], f"{tab.name} plays {what} ({reader.get('error', 'ok')})")


def bytes_over(tabs, seconds):
    """Bytes each tab's inbound video received over the same `seconds`."""
    before = [inbound(t)["bytes"] for t in tabs]
    time.sleep(seconds)
    return [inbound(t)["bytes"] - b for t, b in zip(tabs, before)]


def check_swift_recording(record_dir, codec_name="VP9"):
    """The Swift participant's recording of camera_big: 1280×720, frame numbers in order. The
    recorder starts a new file (`-1`, `-2`…) when the size changes, and the first pictures may come
    before the layer reached camera_big: the check reads the 1280-wide file."""
    def recorded():
        files = [f for f in os.listdir(record_dir) if f.startswith("alice-camera_big") and f.endswith(".y4m")]
        segments = [y4m_frame_numbers(os.path.join(record_dir, f)) for f in files]
        return max(segments, key=lambda s: (s[0] == 1280, len(s[2])), default=(0, 0, []))
    wait_until(lambda: len([n for n in recorded()[2] if n is not None]) >= 20, "the Swift participant recording 20 numbered frames", WAIT)
    width, height, recorded_numbers = recorded()
    readable = [n for n in recorded_numbers if n is not None]
    expect((width, height) == (1280, 720) and readable == sorted(readable) and len(set(readable)) >= 15,
           f"the Swift participant decodes camera_big at 1280×720 in order ({width}×{height}, {readable[:3]}…{readable[-3:]})")
    ok(f"the Swift participant decodes the three-layer {codec_name} at {width}×{height}: {len(readable)} of {len(recorded_numbers)} frames "
       f"readable, numbers {readable[0]}…{readable[-1]}")


def watch_big_and_small(driver, server, channel, track_id, mime, codec_name):
    """Two subscribers of `track_id` in windows of their own, one of camera_big and one of
    camera_small: each must decode `mime` at its width (1280 and 320) with the frame numbers in
    order. Returns their tabs (big, small)."""
    big = Tab.joined(driver, server, "the big subscriber", channel, "big", JOIN_JS, new_window=True)
    small = Tab.joined(driver, server, "the small subscriber", channel, "small", JOIN_JS, new_window=True)
    subscribe(big, track_id, "camera_big", "camera_big")
    subscribe(small, track_id, "camera_small", "camera_small")
    big_stats, big_read = wait_size(big, 1280, "camera_big", mime=mime)
    small_stats, small_read = wait_size(small, 320, "camera_small", mime=mime)
    for name, read in (("camera_big", big_read), ("camera_small", small_read)):
        expect(read == sorted(read) and len(set(read)) >= 15, f"{name}: frame numbers in order ({read[:5]}…{read[-5:]})")
    ok(f"the big subscriber decodes 1280×{big_stats['height']} {codec_name}, numbers {big_read[0]}…{big_read[-1]}")
    ok(f"the small subscriber decodes 320×{small_stats['height']} {codec_name}, numbers {small_read[0]}…{small_read[-1]}")
    return big, small


def switch_up_and_down(small, track_id, mime, codec_name):
    """Switches `small` (a camera_small subscriber of `track_id`) up to camera_big and back down:
    it must show 320, 1280 and 320 wide frames in turn, numbers increasing, every frame readable,
    and no freeze beyond a second (issue 30: none beyond one key-frame interval)."""
    start = len(frames(small))
    before_switches = inbound(small)
    switched = small.call(f"await ch.setLayer('{track_id}', 'camera_big');")
    expect(switched["ok"], f"the small subscriber switched to camera_big ({switched.get('error', 'ok')})")
    wait_size(small, 1280, "camera_big after the switch up", mime=mime)
    switched = small.call(f"await ch.setLayer('{track_id}', 'camera_small');")
    expect(switched["ok"], f"the small subscriber switched back to camera_small ({switched.get('error', 'ok')})")
    small.wait_value(lambda: [f for f in frames(small)[start:] if f["w"] == 320 and f["n"] is not None and
                              any(g["w"] == 1280 for g in frames(small)[start:])],
                     lambda f: len(f) >= 40, "40 frames at 320 after the switches", timeout=WAIT)
    shown = frames(small)[start:]
    numbers = [f["n"] for f in shown if f["n"] is not None]
    unreadable = [f for f in shown if f["n"] is None]
    widths = []
    for f in shown:
        if not widths or widths[-1] != f["w"]:
            widths.append(f["w"])
    expect(numbers == sorted(numbers), f"frame numbers keep increasing across both switches ({numbers[:3]}…{numbers[-3:]})")
    expect(1280 in widths and widths[-1] == 320 and widths.index(1280) < len(widths) - 1,
           f"the small subscriber showed 320, then 1280, then 320 again (sizes in order: {widths})")
    expect(not unreadable, f"every frame shown across the switches is readable ({len(unreadable)} of {len(shown)} were not)")
    gaps = [b - a for a, b in zip(numbers, numbers[1:])]
    missing = max(gaps) - 1 if gaps else 0
    after = inbound(small)
    frozen = after["freezeSeconds"] - before_switches["freezeSeconds"]
    # The bound is one second (30 pattern frames), shorter than any key-frame interval in play
    # (Chromium sends key pictures only when asked; the Swift SDK's interval is 10 s).
    expect(missing <= 30 and frozen <= 1.0,
           f"no freeze beyond a second across the switches (longest run of frames missing {missing}, Chromium's freezes {frozen:.2f} s)")
    ok(f"{codec_name} switch up and down: {len(numbers)} frames, sizes {widths}, longest run of frames missing {missing}, "
       f"freezes {after['freezes'] - before_switches['freezes']} ({frozen:.2f} s), key frames {after['keyFrames']}, PLIs {after['plis']}, NACKs {after['nacks']}")


def publish_scalable(publisher, codec):
    """Publishes `publisher`'s numbered 1280×720 pattern as one `L3T3_KEY` stream of `codec`: the
    track (id, codec, layers), checked to be that codec with three spatial layers."""
    publisher.run(BIG_PATTERN_JS)
    published = publisher.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', scalabilityMode: 'L3T3_KEY'}]);
      return {id: track.id, codec: track.info?.codec ?? null, layers: track.info?.layers?.map((l) => l.desc) ?? []};
    """)
    expect(published["ok"], f"the publisher published its numbered camera ({published.get('error', 'ok')})")
    camera = published["value"]
    expect((camera["codec"] or "").lower() == codec and camera["layers"] == ["camera_big", "camera_medium", "camera_small"],
           f"the camera is published as {codec.upper()} with three spatial layers ({camera})")
    return camera


def run_svc(server, driver, codec, channel, record_dir=None):
    """The SVC checks for `codec` ('vp9' or 'av1', published with `L3T3_KEY`) in `channel`; with
    `record_dir`, also the Swift participant's recording of camera_big there (libvpx for VP9,
    dav1d for AV1)."""
    codec_name = codec.upper()
    mime = "video/" + codec
    publisher = Tab.joined(driver, server, "the publisher", channel, "alice", JOIN_JS, {"preferredVideoCodec": codec})
    camera = publish_scalable(publisher, codec)

    big, small = watch_big_and_small(driver, server, channel, camera["id"], mime, codec_name)
    sent = publisher.run_async(OUTBOUND_JS)
    print(f"  publisher outbound: {sent}")
    expect(sent.get("scalabilityMode") == "L3T3_KEY", f"Chromium encodes {codec_name} with L3T3_KEY ({sent})")

    big_bytes, small_bytes = bytes_over([big, small], 5)
    print(f"  bytes received in the same 5 s: camera_big {big_bytes}, camera_small {small_bytes} ({small_bytes / max(big_bytes, 1):.2f}×)")
    expect(0 < small_bytes < big_bytes, f"the small subscriber receives fewer bytes ({small_bytes} < {big_bytes})")

    # Up to camera_big and back down: each size in turn, the numbers increasing throughout.
    switch_up_and_down(small, camera["id"], mime, codec_name)

    # The Swift SDK decodes the whole picture too (its recording of camera_big).
    if record_dir:
        check_swift_recording(record_dir, codec_name)

    # A subscriber that decodes only VP8: told so, sent nothing.
    vp8 = Tab.joined(driver, server, "the VP8-only subscriber", channel, "vp8only", JOIN_JS, {"videoCodecs": ["vp8"]}, new_window=True)
    answered = vp8.call(f"await ch.subscribe('{camera['id']}'); return true;")
    expect(answered["ok"], f"the VP8-only subscriber's subscribe is answered ({answered.get('error', 'ok')})")
    ended = vp8.wait_event("subscriptionDidEnd", lambda args: args and args[0].get("reason") == "codec_unsupported", timeout=WAIT)
    time.sleep(2)
    stats = inbound(vp8)
    expect(stats.get("packets", 0) == 0, f"the VP8-only subscriber received no video ({stats})")
    ok(f"the VP8-only subscriber got subscription_ended {ended[0]} and no video")


def main_with_swift_subscriber(script, codec, channel):
    """`script`'s main: `run_svc` for `codec` with a Swift SDK participant recording camera_big."""
    reexec_in_loopback_namespace(script)
    record_dir = tempfile.mkdtemp(prefix=f"srtc-{codec}-svc-")
    try:
        return run_browser_bot_test(f"{codec.upper()} SVC (L3T3_KEY) between Chromium participants and the Swift SDK",
                                    lambda server, driver, bot: run_svc(server, driver, codec, channel, record_dir), channel, "swiftbot",
                                    ("--video", "none", "--audio", "none", "--layer", "camera_big", "--record", record_dir,
                                     "--duration", "180", "--stats-interval", "1"), wait_seconds=WAIT)
    finally:
        shutil.rmtree(record_dir, ignore_errors=True)


def main():
    return main_with_swift_subscriber(__file__, "vp9", CHANNEL)


if __name__ == "__main__":
    sys.exit(main())
