#!/usr/bin/env python3
"""H.264 between two Chromium participants and the Swift SDK through the SFU (RFC 6184
packetization-mode 1). The Swift participant (`srtc join --video-codec h264`) publishes its test
pattern as an H.264 simulcast camera (OpenH264); the browser, joined with
`preferredVideoCodec: 'h264'` (setCodecPreferences), publishes a camera in H.264 too: a canvas
painting the same frame-number code band. Checks: the tracks are announced with `codec: "H264"`;
a second browser (another window: a participant with peer connections of its own) decodes the
browser's camera with its H.264 decoder (inbound codec video/H264) and reads its frame numbers in
order; the browser decodes the Swift participant's video on both layers as H.264 and reads the
frame numbers (increasing, on camera_big then camera_small); the Swift participant decodes the
browser's H.264.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

CHANNEL = "h264room"
WAIT = 30

# The test pattern's check byte (RTCMedia's TestPatternLayout.check).
CHECK_JS = """
const check = (v) => (((v & 0xFF) + ((v >> 8) & 0xFF) * 3 + ((v >> 16) & 0xFF) * 7) & 0xFF) ^ 0x5A;
"""

# A 640×360 canvas painting TestPatternLayout's code band (2 × 16 cells, black 16 / white 235, a
# 24-bit number and its check byte) on mid grey, with a number one higher each frame at 30 fps:
# the browser's camera, so that whoever decodes it can read its frame numbers.
PATTERN_JS = CHECK_JS + """
const canvas = document.createElement('canvas');
canvas.width = 640; canvas.height = 360;
const g = canvas.getContext('2d');
const cellW = Math.floor(canvas.width / 16), cellH = Math.max(4, Math.floor(canvas.height / 12));
let n = 1;
const paint = () => {
  g.fillStyle = 'rgb(128,128,128)';
  g.fillRect(0, 0, canvas.width, canvas.height);
  const word = ((n << 8) | check(n)) >>> 0;
  for (let i = 0; i < 32; i++) {
    g.fillStyle = (word >>> (31 - i)) & 1 ? 'rgb(235,235,235)' : 'rgb(16,16,16)';
    g.fillRect((i % 16) * cellW, Math.floor(i / 16) * cellH, cellW, cellH);
  }
  n = (n + 1) & 0xFFFFFF;
};
paint();
setInterval(paint, 33);
window.patternTrack = canvas.captureStream(30).getVideoTracks()[0];
"""

# Reads the test pattern's frame number (RTCMedia's TestPatternLayout: 2 × 16 cells across the
# top, a 24-bit number and an 8-bit check) from the frame `video` shows: `readPatternNumber(video)`,
# null when the frame holds none. Defines `check` too (the pattern's check byte).
PATTERN_READER_JS = CHECK_JS + """
const patternCanvas = document.createElement('canvas');
const patternContext = patternCanvas.getContext('2d', {willReadFrequently: true});
window.readPatternNumber = (video) => {
  const canvas = patternCanvas, context = patternContext;
  const w = video.videoWidth, h = video.videoHeight;
  if (w < 64 || h < 48) return null;
  canvas.width = w; canvas.height = h;
  context.drawImage(video, 0, 0, w, h);
  const cellW = Math.floor(w / 16), cellH = Math.max(4, Math.floor(h / 12));
  const pixels = context.getImageData(0, 0, w, cellH * 2).data;
  let word = 0;
  for (let i = 0; i < 32; i++) {
    const x0 = (i % 16) * cellW, y0 = Math.floor(i / 16) * cellH;
    let sum = 0, count = 0;
    for (let y = y0 + Math.floor(cellH / 4); y < y0 + cellH - Math.floor(cellH / 4); y++) {
      for (let x = x0 + Math.floor(cellW / 4); x < x0 + cellW - Math.floor(cellW / 4); x++) {
        const p = (y * w + x) * 4;
        sum += 0.299 * pixels[p] + 0.587 * pixels[p + 1] + 0.114 * pixels[p + 2];
        count++;
      }
    }
    const average = sum / count;
    if (average > 100 && average < 155) return null;
    word = ((word << 1) | (average >= 155 ? 1 : 0)) >>> 0;
  }
  const value = word >>> 8;
  return (word & 0xFF) === check(value) ? value : null;
};
// Plays remote track `trackId` and calls `onFrame(number, video)` for every frame shown; the
// promise of `play()`. `subscribe()` resolves on the server's answer and the MediaStreamTrack
// comes with `trackDidBindRtcTrack` (docs/sdk-web.md), which may be later: wait for it (10 s).
window.playRemoteVideo = async (trackId, onFrame) => {
  const track = window.ch.remoteTrack(trackId);
  for (let waited = 0; !track.mediaStreamTrack && waited < 10000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (!track.mediaStreamTrack) throw new Error(`no MediaStreamTrack bound to ${trackId} within 10 s`);
  const video = document.createElement('video');
  video.muted = true;
  video.autoplay = true;
  video.srcObject = new MediaStream([track.mediaStreamTrack]);
  document.body.appendChild(video);
  const shown = () => {
    onFrame(window.readPatternNumber(video), video);
    video.requestVideoFrameCallback(shown);
  };
  video.requestVideoFrameCallback(shown);
  return video.play();
};
"""

# Plays a remote video and reads the test pattern's frame number (RTCMedia's TestPatternLayout:
# 2 × 16 cells across the top, a 24-bit number and an 8-bit check) out of every frame shown.
READER_JS = PATTERN_READER_JS + """
const [trackId, done] = arguments;
window.readFrames = [];
window.playRemoteVideo(trackId, (n, video) => window.readFrames.push({n, w: video.videoWidth, h: video.videoHeight}))
  .then(() => done({ok: true}), (e) => done({ok: false, error: String(e)}));
"""

# The subscribe connection's inbound video: frames decoded, size, codec, bytes, freezes and feedback.
INBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  const byId = new Map();
  subscribe?.forEach((r) => byId.set(r.id, r));
  let out = null;
  for (const r of byId.values()) {
    if (r.type !== 'inbound-rtp' || r.kind !== 'video') continue;
    out = {framesDecoded: r.framesDecoded || 0, width: r.frameWidth || 0, height: r.frameHeight || 0,
           mimeType: byId.get(r.codecId)?.mimeType ?? null, decoder: r.decoderImplementation ?? null,
           bytes: r.bytesReceived || 0, packets: r.packetsReceived || 0, keyFrames: r.keyFramesDecoded || 0,
           freezes: r.freezeCount || 0, freezeSeconds: r.totalFreezesDuration || 0, nacks: r.nackCount || 0, plis: r.pliCount || 0};
  }
  done(out || {framesDecoded: 0, bytes: 0, packets: 0});
}).catch((e) => done({error: String(e)}));
"""


def numbers(tab, width=None):
    """The frame numbers the page read, in order (from frames `width` wide when given)."""
    frames = tab.run("return window.readFrames;") or []
    return [f["n"] for f in frames if f["n"] is not None and (width is None or f["w"] == width)]


# The codecs these checks run with: the name the SDKs take, and the one people read.
NAMES = {"h264": "H.264", "vp9": "VP9", "av1": "AV1"}


def subscribe_and_read(tab, track_id, what, layer=None, width=None, codec="h264"):
    """`tab` subscribes to `track_id` (at `layer`), plays it and must decode it as `codec` (`width`
    wide when given) and read 20 frame numbers in order from its pixels; returns them."""
    options = f", {{layer: '{layer}'}}" if layer else ""
    subscribed = tab.call(f"await ch.subscribe('{track_id}'{options});")
    expect(subscribed["ok"], f"{tab.name} subscribed to {what} ({subscribed.get('error', 'ok')})")
    reader = tab.run_async(READER_JS, track_id)
    expect(reader["ok"], f"{tab.name} plays {what} ({reader.get('error', 'ok')})")
    stats = tab.wait_value(lambda: tab.run_async(INBOUND_JS),
                           lambda s: s.get("framesDecoded", 0) > 20 and (width is None or s.get("width") == width),
                           f"decoding {what}", timeout=WAIT)
    expect((stats.get("mimeType") or "").lower() == f"video/{codec}", f"{tab.name} decodes {what} as {NAMES[codec]} ({stats})")
    read = tab.wait_value(lambda: numbers(tab, width), lambda n: len(n) >= 20, f"20 frame numbers read from {what}", timeout=WAIT)
    expect(read == sorted(read) and len(set(read)) >= 15, f"{what}: frame numbers in order ({read[:5]}…{read[-5:]})")
    ok(f"{tab.name} decodes {what}: {len(read)} frames, numbers {read[0]}…{read[-1]}")
    return read


def run(server, driver, bot, codec="h264", prefer=True, small_width=None):
    """The checks of this file's docstring, for `codec` (`h264` or `vp9`); without `prefer` the
    browser keeps Chromium's own codec order (VP8 first) and the server's `--video-codecs` picks.
    `small_width`: the width camera_small is decoded at (default: 320 for a VP9 bot, whose camera
    is one L2T3_KEY stream, else 160, a simulcast layer's quarter of 640)."""
    name = NAMES[codec]
    tab = Tab.joined(driver, server, "the browser", CHANNEL, "browser", JOIN_JS, {"preferredVideoCodec": codec} if prefer else {})
    tab.run(PATTERN_JS)
    published = tab.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big'}]);
      return {id: track.id, codec: track.info?.codec ?? null};
    """)
    expect(published["ok"], f"the browser published its numbered camera ({published.get('error', 'ok')})")
    expect((published["value"]["codec"] or "").lower() == codec, f"the browser's camera is published as {name} ({published['value']})")
    if not prefer:
        # The server chose: the browser's offer put another codec first.
        offer = tab.run("return window.ch.peerConnections.publish.localDescription.sdp;")
        video = offer[offer.index("m=video"):]
        first = video.split("\r\n")[0].split()[3]
        first_name = next(line.split()[1].split("/")[0] for line in video.split("\r\n") if line.startswith(f"a=rtpmap:{first} "))
        expect(first_name.lower() != codec, f"the browser offered {first_name} first and the server's list picked {name}")

    # Another browser (a second window: a participant with peer connections of its own) decodes it.
    viewer = Tab.joined(driver, server, "the second browser", CHANNEL, "viewer", JOIN_JS, new_window=True)
    camera = viewer.wait_remote_track("browser", "video", timeout=WAIT)
    expect((camera["codec"] or "").lower() == codec, f"the second browser sees the camera announced as {name} ({camera})")
    subscribe_and_read(viewer, camera["id"], "the browser's camera", codec=codec)

    tab.focus()
    video = tab.wait_remote_track("swiftbot", "video", timeout=WAIT)
    expect((video["codec"] or "").lower() == codec and video["layers"] == ["camera_big", "camera_small"],
           f"the Swift participant's camera is announced as {name} with two layers ({video})")
    big = subscribe_and_read(tab, video["id"], "the Swift participant's camera_big", layer="camera_big", width=640, codec=codec)

    switched = tab.call(f"await ch.setLayer('{video['id']}', 'camera_small');")
    expect(switched["ok"], f"switched to camera_small ({switched.get('error', 'ok')})")
    # The Swift SDK sends a two-layer VP9 track as one SVC stream (L2T3_KEY): its lower spatial
    # layer is half the size, where a simulcast small layer is a quarter.
    small_width = small_width or (320 if codec == "vp9" else 160)
    tab.wait_value(lambda: numbers(tab, small_width), lambda n: len(n) >= 15, "15 frame numbers read on camera_small", timeout=WAIT)
    small = numbers(tab, small_width)
    expect(small == sorted(small) and small[0] >= big[-1], f"camera_small numbers continue ({small[:5]}…{small[-5:]})")
    ok(f"the browser decodes the {name} camera_small layer: numbers {small[0]}…{small[-1]}")

    frames, _ = bot.wait_stats("browser", "camera_big", lambda s: s[0] > 20, f"the Swift participant decoding the browser's {name}", WAIT)
    ok(f"the Swift participant decodes the browser's {name} camera ({frames} frames)")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("H.264 between Chromium, a second browser and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--video-codec", "h264", "--size", "640x360", "--audio", "none", "--duration", "120",
                                 "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
