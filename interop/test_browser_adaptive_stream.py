#!/usr/bin/env python3
"""Adaptive stream (the web SDK's `adaptiveStream` channel option, docs/sdk-web.md): a remote
video's attached element picks the layer by its rendered size and is paused at the server while
nothing shows it. A Chromium publisher sends its numbered test pattern (1280×720) as a VP8
simulcast camera (camera_big 1280 wide, camera_medium 640, camera_small 320). A Chromium subscriber
with `adaptiveStream: true` subscribes and attaches the track to a `<video>` 640 px wide: it
decodes camera_medium (inbound-rtp `frameWidth` 640, frame numbers read from the pixels in order).
The element grows to 1000 px: camera_big arrives (1280 wide); it shrinks to 160 px: camera_small
(320 wide). The element is hidden (`display:
none`): the SDK pauses the subscription (`set_layer` `none`), the subscriber's `framesReceived`
stops growing and the server forwards no RTP packet (`srtc_sfu_worker_forwarded_packets_total`
on /metrics: the subscriber is the only one). Shown again: frames come again, numbered in order,
and both counters grow again.
Then the same with the element scrolled out of view and back. The seconds from each change to its
effect are printed (not checked).

The browsers and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from test_browser_h264 import PATTERN_READER_JS  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402
from test_browser_vp9_svc import BIG_PATTERN_JS  # noqa: E402

CHANNEL = "adaptiveroom"
WAIT = 45

# Attaches remote track `trackId` to a <video> `width` px wide below a tall spacer (for scrolling
# it out of view) and reads the frame number of every frame shown into window.readFrames.
ATTACH_JS = PATTERN_READER_JS + """
const [trackId, width, done] = arguments;
const track = window.ch.remoteTrack(trackId);
const video = document.createElement('video');
video.muted = true;
video.autoplay = true;
video.style.width = width + 'px';
video.style.display = 'block';
const spacer = document.createElement('div');
spacer.style.height = '4000px';
document.body.prepend(video);
document.body.appendChild(spacer);
window.adaptiveVideo = video;
window.readFrames = [];
track.attach(video);
const shown = () => {
  window.readFrames.push({n: window.readPatternNumber(video), w: video.videoWidth});
  video.requestVideoFrameCallback(shown);
};
video.requestVideoFrameCallback(shown);
done({ok: true});
"""

# The subscribe connection's inbound video.
RECEIVED_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  let out = {framesReceived: 0, framesDecoded: 0, width: 0};
  subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video') out = {framesReceived: r.framesReceived || 0, framesDecoded: r.framesDecoded || 0, width: r.frameWidth || 0};
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


def forwarded(server):
    """RTP packets the server's media workers sent to subscribers, summed."""
    with urllib.request.urlopen(server.base + "/metrics", timeout=5) as r:
        lines = r.read().decode().splitlines()
    return sum(float(line.split()[-1]) for line in lines if line.startswith("srtc_sfu_worker_forwarded_packets_total"))


def numbers(tab, width):
    frames = tab.run("return window.readFrames;") or []
    return [f["n"] for f in frames if f["n"] is not None and f["w"] == width]


def wait_width(tab, width, what):
    """Waits until the subscriber decodes `width` wide and has read 20 frame numbers at that width; returns the seconds taken."""
    started = time.time()
    tab.wait_value(lambda: tab.run_async(RECEIVED_JS), lambda s: s.get("width") == width, f"{what}: decoded {width} wide", timeout=WAIT)
    seconds = time.time() - started
    before = len(numbers(tab, width))
    read = tab.wait_value(lambda: numbers(tab, width)[before:], lambda n: len(n) >= 20, f"{what}: 20 frame numbers read {width} wide", timeout=WAIT)
    expect(read == sorted(read), f"{what}: frame numbers in order ({read[:3]}…{read[-3:]})")
    return seconds


def paused_and_resumed(tab, server, hide_js, show_js, what):
    """Hides the element with `hide_js`: the subscription pauses, frames and forwarded packets stop;
    shows it with `show_js`: frames come again."""
    tab.run(hide_js)
    started = time.time()
    tab.wait_true("return window.ch.remoteTracks.some((t) => t.isAdaptivePaused);", f"{what}: the SDK paused the video", WAIT)
    # Frames already on their way arrive, and /metrics lags up to 1 s: measure after that.
    tab.wait_value(lambda: (tab.run_async(RECEIVED_JS)["framesReceived"], time.sleep(1.5), tab.run_async(RECEIVED_JS)["framesReceived"]),
                   lambda pair: pair[0] == pair[2], f"{what}: framesReceived stops growing", timeout=WAIT, interval=0)
    stopped = time.time() - started
    frames_before, packets_before = tab.run_async(RECEIVED_JS)["framesReceived"], forwarded(server)
    time.sleep(3)
    frames_after, packets_after = tab.run_async(RECEIVED_JS)["framesReceived"], forwarded(server)
    print(f"  {what}: stopped {stopped:.2f} s after hiding; then in 3 s: {frames_after - frames_before} frames received, "
          f"{packets_after - packets_before:.0f} RTP packets forwarded by the server")
    expect(frames_after == frames_before, f"{what}: no frame received while hidden ({frames_before} → {frames_after})")
    expect(packets_after == packets_before, f"{what}: the server forwards nothing while hidden ({packets_before:.0f} → {packets_after:.0f})")
    ok(f"{what}: paused — no frame received and no RTP packet forwarded in 3 s")

    tab.run(show_js)
    shown = time.time()
    tab.wait_value(lambda: tab.run_async(RECEIVED_JS)["framesReceived"], lambda n: n > frames_after + 10, f"{what}: frames again", timeout=WAIT)
    back = time.time() - shown
    width = tab.run_async(RECEIVED_JS)["width"]
    wait_width(tab, width, f"{what}, shown again")
    expect(not tab.run("return window.ch.remoteTracks.some((t) => t.isAdaptivePaused);"), f"{what}: no longer paused")
    # The same counters move while it shows: the checks above could fail.
    frames_before, packets_before = tab.run_async(RECEIVED_JS)["framesReceived"], forwarded(server)
    time.sleep(3)
    frames_after, packets_after = tab.run_async(RECEIVED_JS)["framesReceived"], forwarded(server)
    print(f"  {what}, shown: in 3 s {frames_after - frames_before} frames received, {packets_after - packets_before:.0f} RTP packets forwarded")
    expect(frames_after > frames_before and packets_after > packets_before, f"{what}: frames and forwarded packets grow while shown")
    ok(f"{what}: shown again, frames are back {back:.2f} s later ({width} wide), numbered in order")


def run(server, driver):
    publisher = Tab.joined(driver, server, "the publisher", CHANNEL, "alice", JOIN_JS)
    publisher.run(BIG_PATTERN_JS)
    published = publisher.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', simulcast: true}]);
      return {id: track.id, layers: track.info?.layers?.map((l) => [l.desc, l.width]) ?? []};
    """)
    expect(published["ok"], f"the publisher published a simulcast camera ({published.get('error', 'ok')})")
    camera = published["value"]

    viewer = Tab.joined(driver, server, "the subscriber", CHANNEL, "viewer", JOIN_JS, {"adaptiveStream": True}, new_window=True)
    viewer.wait_remote_track("alice", "video")
    subscribed = viewer.call(f"await ch.subscribe('{camera['id']}');")
    expect(subscribed["ok"], f"the subscriber subscribed ({subscribed.get('error', 'ok')})")
    attached = viewer.run_async(ATTACH_JS, camera["id"], 640)
    expect(attached["ok"], f"the subscriber attached the track ({attached.get('error', 'ok')})")
    wait_width(viewer, 640, "a 640 px element")
    ok(f"layers {camera['layers']}: a 640 px element gets camera_medium (640 wide), frame numbers in order")

    viewer.run("window.adaptiveVideo.style.width = '1000px';")
    seconds = wait_width(viewer, 1280, "a 1000 px element")
    ok(f"the element grew to 1000 px: camera_big (1280 wide) {seconds:.2f} s later, frame numbers in order")

    viewer.run("window.adaptiveVideo.style.width = '160px';")
    seconds = wait_width(viewer, 320, "a 160 px element")
    ok(f"the element shrunk to 160 px: camera_small (320 wide) {seconds:.2f} s later, frame numbers in order")

    paused_and_resumed(viewer, server, "window.adaptiveVideo.style.display = 'none';", "window.adaptiveVideo.style.display = 'block';",
                       "display: none")
    paused_and_resumed(viewer, server, "window.scrollTo(0, 3000);", "window.scrollTo(0, 0);", "scrolled out of view")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("Adaptive stream in Chromium", run, wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
