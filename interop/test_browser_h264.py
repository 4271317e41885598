#!/usr/bin/env python3
"""H.264 between Chromium and the Swift SDK through the SFU (RFC 6184 packetization-mode 1).
The Swift participant (`srtc join --video-codec h264`) publishes its test pattern as an H.264
simulcast camera (OpenH264); the browser, joined with `preferredVideoCodec: 'h264'`
(setCodecPreferences), publishes its fake camera in H.264 too. Checks: both tracks are announced
with `codec: "H264"`; the browser decodes the Swift participant's video on both layers with
its H.264 decoder (the inbound codec is video/H264) and reads the frame numbers in the pixels
(increasing, on camera_big then camera_small); the Swift participant decodes the browser's H.264.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import JoinBot, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from srtc_test_support import SUMMARIZE_JS, expect, ok  # noqa: E402
from test_browser_media import Tab  # noqa: E402
from test_browser_sdk import bot_stats  # noqa: E402

CHANNEL = "h264room"
WAIT = 30

JOIN_JS = SUMMARIZE_JS + """
const [token, done] = arguments;
window.events = [];
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  const ch = new srtc.SRTCChannel({preferredVideoCodec: 'h264', logLevel: 'debug',
                                   logger: (level, m) => console.log('[srtc ' + level + '] ' + m)});
  window.ch = ch;
  ch.onAny((name, ...args) => window.events.push({name, args: args.map(window.summarize)}));
  await ch.join(location.origin, token);
  done({ok: true, uid: ch.uid});
}).catch((e) => done({ok: false, error: String(e), code: e.code}));
"""

# Plays a remote video and reads the test pattern's frame number (RTCMedia's TestPatternLayout:
# 2 × 16 cells across the top, a 24-bit number and an 8-bit check) out of every frame shown.
READER_JS = """
const [trackId, done] = arguments;
const track = window.ch.remoteTrack(trackId);
const video = document.createElement('video');
video.muted = true;
video.autoplay = true;
video.srcObject = new MediaStream([track.mediaStreamTrack]);
document.body.appendChild(video);
const canvas = document.createElement('canvas');
const context = canvas.getContext('2d', {willReadFrequently: true});
window.readFrames = [];
const check = (v) => (((v & 0xFF) + ((v >> 8) & 0xFF) * 3 + ((v >> 16) & 0xFF) * 7) & 0xFF) ^ 0x5A;
const read = () => {
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
const onFrame = () => {
  const n = read();
  window.readFrames.push({n, w: video.videoWidth, h: video.videoHeight});
  video.requestVideoFrameCallback(onFrame);
};
video.requestVideoFrameCallback(onFrame);
video.play().then(() => done({ok: true}), (e) => done({ok: false, error: String(e)}));
"""

# The subscribe connection's inbound video: frames decoded, size and codec.
INBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  const byId = new Map();
  subscribe?.forEach((r) => byId.set(r.id, r));
  let out = null;
  for (const r of byId.values()) {
    if (r.type !== 'inbound-rtp' || r.kind !== 'video') continue;
    out = {framesDecoded: r.framesDecoded || 0, width: r.frameWidth || 0, height: r.frameHeight || 0,
           mimeType: byId.get(r.codecId)?.mimeType ?? null, decoder: r.decoderImplementation ?? null};
  }
  done(out || {framesDecoded: 0});
}).catch((e) => done({error: String(e)}));
"""


def numbers(tab, width):
    """The frame numbers the browser read from frames `width` wide."""
    frames = tab.run("return window.readFrames;") or []
    return [f["n"] for f in frames if f["n"] is not None and f["w"] == width]


def run(server, driver, bot):
    driver.get(server.base + "/")
    tab = Tab(driver, driver.current_window_handle, "browser")
    joined = tab.run_async(JOIN_JS, server.channel_token(CHANNEL, "browser"))
    expect(joined["ok"], f"the browser joined ({joined.get('error', 'ok')})")
    published = tab.call("""
      const {video} = await srtc.createLocalMediaTracks({audio: false, video: true});
      const [track] = await ch.publishLocalTracks([{track: video, desc: 'camera_big'}]);
      return {id: track.id, codec: track.info?.codec ?? null};
    """)
    expect(published["ok"], f"the browser published its camera ({published.get('error', 'ok')})")
    expect((published["value"]["codec"] or "").lower() == "h264", f"the browser's camera is published as H.264 ({published['value']})")

    deadline = time.time() + WAIT
    video = None
    while time.time() < deadline and not video:
        video = tab.call("for (const t of ch.remoteTracks) if (t.uid === 'swiftbot' && t.kind === 'video') "
                         "return {id: t.id, codec: t.codec, layers: t.info.layers.map((l) => l.desc)}; return null;").get("value")
        time.sleep(0.2)
    expect(video, "the browser sees the Swift participant's video track")
    expect((video["codec"] or "").lower() == "h264" and video["layers"] == ["camera_big", "camera_small"],
           f"the Swift participant's camera is announced as H.264 simulcast ({video})")

    subscribed = tab.call(f"await ch.subscribe('{video['id']}', {{layer: 'camera_big'}});")
    expect(subscribed["ok"], f"the browser subscribed ({subscribed.get('error', 'ok')})")
    reader = tab.run_async(READER_JS, video["id"])
    expect(reader["ok"], f"the remote video plays ({reader.get('error', 'ok')})")
    stats = tab.wait_value(lambda: tab.run_async(INBOUND_JS), lambda s: s.get("framesDecoded", 0) > 20 and s.get("width") == 640,
                           "decoding camera_big", timeout=WAIT)
    expect((stats.get("mimeType") or "").lower() == "video/h264", f"the browser decodes H.264 ({stats})")
    tab.wait_value(lambda: numbers(tab, 640), lambda n: len(n) >= 20, "20 frame numbers read on camera_big", timeout=WAIT)
    big = numbers(tab, 640)
    expect(big == sorted(big) and len(set(big)) >= 15, f"camera_big frame numbers increase ({big[:5]}…{big[-5:]})")
    ok(f"the browser decodes the Swift participant's H.264 camera_big: {len(big)} frames, numbers {big[0]}…{big[-1]}")

    switched = tab.call(f"await ch.setLayer('{video['id']}', 'camera_small');")
    expect(switched["ok"], f"switched to camera_small ({switched.get('error', 'ok')})")
    tab.wait_value(lambda: numbers(tab, 160), lambda n: len(n) >= 15, "15 frame numbers read on camera_small", timeout=WAIT)
    small = numbers(tab, 160)
    expect(small == sorted(small) and small[0] >= big[-1], f"camera_small numbers continue ({small[:5]}…{small[-5:]})")
    ok(f"the browser decodes the H.264 camera_small layer: numbers {small[0]}…{small[-1]}")

    deadline = time.time() + WAIT
    frames = (0, 0)
    while time.time() < deadline and frames[0] <= 20:
        frames = bot_stats(bot.log_path, "browser", "camera_big")
        time.sleep(0.5)
    expect(frames[0] > 20, f"the Swift participant decodes the browser's H.264 ({frames[0]} frames)")
    ok(f"the Swift participant decodes the browser's H.264 camera ({frames[0]} frames)")


def main():
    reexec_in_loopback_namespace(__file__)
    bots = []

    def run_with_bot(server, driver):
        bots.append(JoinBot(server, CHANNEL, "swiftbot", "--video-codec", "h264", "--size", "640x360", "--audio", "none",
                            "--duration", "120", "--stats-interval", "1"))
        try:
            run(server, driver, bots[0])
        finally:
            bots[0].stop()

    def dump(driver):
        for line in Tab(driver, driver.current_window_handle, "browser").console()[-60:]:
            print(line)
        for bot in bots:
            print("--- Swift participant (srtc join) log ---")
            print(bot.read_log()[-6000:])

    return run_browser_test("H.264 between Chromium and the Swift SDK", run_with_bot, wait_seconds=WAIT, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
