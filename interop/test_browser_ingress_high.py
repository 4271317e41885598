#!/usr/bin/env python3
"""H.264 Main and High over an RTMP ingress, watched in Chromium through the web SDK
(docs/ingress.md, "H.264 passthrough, and what is transcoded"; docs/protocol.md, `join`'s
`video_codecs`).

A real srtc-server; ffmpeg (from the test) pushes a numbered 320×240 test pattern (the frame
number in a code band across the top, as the SDKs' test pattern) and a tone over RTMP, encoded by
x264 without B-frames. Headless Chromium joins with the web SDK's defaults: its join's
`video_codecs` names the H.264 profiles the browser decodes (`RTCRtpReceiver.getCapabilities`),
which are printed. Then, one ingress after another:

- **High** (`-profile:v high`), the ingress made without `transcode`: the worker transcodes it to
  VP8 (`video_mode` `transcode`, the track announced VP8), and the browser decodes it (inbound
  codec video/VP8) and reads 20 frame numbers in order from its pixels;
- **Main** (`-profile:v main`): passed through (`video_mode` `passthrough`, the track announced
  H264 with `profileLevelId` `4d001f`), and the browser decodes it as video/H264 and reads the
  frame numbers in order;
- **High with `"transcode": false`**: passed through as High (`64001f`). A browser that lacks a
  High decoder (Debian's Chromium offers `42001f, 42e01f, 4d001f, f4001f`) is told: its
  subscribe is answered and `subscriptionDidEnd` `{reason: 'codec_unsupported'}` follows, nothing
  is offered (no m-section for the track in the subscriber connection). A browser that has one
  decodes it instead.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, paint_code_band, reexec_in_loopback_namespace, run_browser_test, wait_until  # noqa: E402
from test_browser_h264 import INBOUND_JS, READER_JS, numbers  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

CHANNEL = "ingresshigh"
WAIT = 30
WIDTH, HEIGHT, FPS = 320, 240, 15
# Enough pictures for a push to outlast its checks (a key frame each second).
SECONDS = 45

X264 = {
    # High: CABAC and the 8×8 transform (veryfast uses both), no B-frames.
    "high": ["-preset", "veryfast", "-profile:v", "high", "-bf", "0", "-tune", "zerolatency"],
    "main": ["-preset", "veryfast", "-profile:v", "main", "-bf", "0", "-tune", "zerolatency"],
}

# What this browser's receivers take, as the web SDK's join sent it.
CAPABILITIES_JS = """
const caps = RTCRtpReceiver.getCapabilities('video');
return {h264: caps.codecs.filter((c) => c.mimeType === 'video/H264').map((c) => c.sdpFmtpLine),
        joined: window.srtcJoinCodecs};
"""

# The subscribe connection's m-sections: [mid, direction, msid track id, codecs] of each.
SUBSCRIBER_SECTIONS_JS = """
const pc = window.ch.peerConnections.subscribe;
const sdp = pc?.remoteDescription?.sdp ?? '';
return sdp.split(/\\r?\\nm=/).slice(1).map((s) => ({
  kind: s.split(' ')[0],
  msid: (s.match(/a=msid:\\S+ (\\S+)/) || [])[1] ?? null,
  codecs: [...s.matchAll(/a=rtpmap:\\d+ ([^\\r\\n]+)/g)].map((m) => m[1]),
  fmtp: [...s.matchAll(/a=fmtp:\\d+ ([^\\r\\n]+)/g)].map((m) => m[1]),
}));
"""


def write_pattern(path):
    """SECONDS of numbered WIDTH×HEIGHT pictures at FPS as a YUV4MPEG2 file (the numbers from 1)."""
    chroma = bytes([128]) * (2 * (WIDTH // 2) * (HEIGHT // 2))
    base = bytearray([128]) * (WIDTH * HEIGHT)
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        for n in range(1, SECONDS * FPS + 1):
            luma = bytearray(base)
            paint_code_band(luma, WIDTH, HEIGHT, n)
            f.write(b"FRAME\n")
            f.write(luma)
            f.write(chroma)


def push(pattern, url, profile, log):
    """ffmpeg pushing `pattern` as H.264 `profile` (no B-frames, a key frame a second) and a tone as AAC, in real time."""
    return subprocess.Popen(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re", "-i", pattern,
         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-shortest", "-map", "0:v", "-map", "1:a",
         "-c:v", "libx264", *X264[profile], "-crf", "16", "-g", str(FPS), "-pix_fmt", "yuv420p",
         "-c:a", "aac", "-b:a", "96k", "-f", "flv", url],
        stdout=subprocess.DEVNULL, stderr=log)


class Ingress:
    """An RTMP ingress of CHANNEL and the ffmpeg pushes to it."""

    def __init__(self, server, uid, transcode=None):
        body = {"channel": CHANNEL, "uid": uid, "kind": "rtmp"}
        if transcode is not None:
            body["transcode"] = transcode
        status, answer = server.call("POST", "/server/v1/ingress/create", body)
        expect(status == 200, f"ingress/create {body} → {status}")
        self.server, self.uid, self.info = server, uid, answer["ingress"]
        self.pushers = []

    def listed(self):
        ingresses = self.server.call("POST", "/server/v1/ingress/list", {"channel": CHANNEL})[1]["ingresses"]
        return next(i for i in ingresses if i["ingress_id"] == self.info["ingress_id"])

    def push_until_publishing(self, pattern, profile, log):
        """Pushes until the ingress publishes (a listener refuses for a moment between two
        connections: push again while it does); returns its `media`."""
        def taken():
            if not self.pushers or self.pushers[-1].poll() is not None:
                self.pushers.append(push(pattern, self.info["url"], profile, log))
            listed = self.listed()
            return listed if listed["status"] == "publishing" and listed.get("media") else None
        media = wait_until(taken, f"{self.uid}'s push taken", 60, 0.5)["media"]
        ok(f"{self.uid}: ffmpeg's {profile} push taken after {len(self.pushers)} attempt(s): {media}")
        return media

    def stop(self):
        for p in self.pushers:
            if p.poll() is None:
                p.kill()
            p.wait()
        self.server.call("POST", "/server/v1/ingress/delete", {"ingress_id": self.info["ingress_id"]})


def read_in_order(tab, track, what, mime):
    """`tab` subscribes to `track`, plays it and must decode it as `mime` and read 20 frame
    numbers in order from its pixels."""
    subscribed = tab.call(f"await ch.subscribe('{track['id']}');")
    expect(subscribed["ok"], f"subscribed to {what} ({subscribed.get('error', 'ok')})")
    reader = tab.run_async(READER_JS, track["id"])
    expect(reader["ok"], f"plays {what} ({reader.get('error', 'ok')})")
    stats = tab.wait_value(lambda: tab.run_async(INBOUND_JS), lambda s: s.get("framesDecoded", 0) > 20, f"decoding {what}", timeout=WAIT)
    expect((stats.get("mimeType") or "").lower() == mime, f"the browser decodes {what} as {mime} ({stats})")
    read = tab.wait_value(lambda: numbers(tab), lambda n: len(n) >= 20, f"20 frame numbers read from {what}", timeout=WAIT)
    expect(read == sorted(read) and len(set(read)) >= 15, f"{what}: frame numbers in order ({read[:5]}…{read[-5:]})")
    ok(f"the browser decodes {what}: {len(read)} frames, numbers {read[0]}…{read[-1]}")
    tab.call(f"await ch.unsubscribe('{track['id']}');")
    tab.run("document.querySelectorAll('video').forEach((v) => v.remove()); window.readFrames = [];")


def run(server, driver):
    folder = tempfile.mkdtemp(prefix="srtc-ingress-high-")
    ingresses = []
    log = open(os.path.join(folder, "ffmpeg.log"), "w")
    try:
        pattern = os.path.join(folder, "pattern.y4m")
        write_pattern(pattern)
        driver.get(server.base + "/")
        tab = Tab(driver, driver.current_window_handle, "the browser")
        # The join's `video_codecs` as the SDK builds them, to print beside the capabilities.
        tab.run("import('/sdk/srtc/video-codecs.js').then((m) => { window.srtcJoinCodecs = m.joinVideoCodecs(null); });")
        joined = tab.run_async(JOIN_JS, server.channel_token(CHANNEL, "browser"))
        expect(joined["ok"], f"the browser joined {CHANNEL} ({joined.get('error', 'ok')})")
        tab.wait_true("return !!window.srtcJoinCodecs", "the web SDK's join video_codecs")
        caps = tab.run(CAPABILITIES_JS)
        ok(f"the browser's H.264 receivers: {caps['h264']}; its join's video_codecs: {caps['joined']}")
        decodes_high = any("profile-level-id=6400" in line and "packetization-mode=1" in line for line in caps["h264"])

        def start(uid, profile, transcode=None):
            """An ingress pushed `profile`: its media and the browser's view of its camera track."""
            ingress = Ingress(server, uid, transcode)
            ingresses.append(ingress)
            media = ingress.push_until_publishing(pattern, profile, log)
            track = tab.wait_remote_track(uid, "video", timeout=WAIT)
            info = tab.call(f"return ch.remoteTrack('{track['id']}').info;")["value"]
            return ingress, media, track, info

        # High, no `transcode`: transcoded to VP8, which every browser decodes.
        high, media, track, info = start("high", "high")
        expect(media["video_codec"] == "h264" and media["video_mode"] == "transcode", f"H.264 High is transcoded ({media})")
        expect((track["codec"] or "").lower() == "vp8", f"the High ingress's camera is announced as VP8 ({info})")
        read_in_order(tab, track, "the High push (transcoded)", "video/vp8")
        high.stop()

        # Main: passed through, decoded as H.264 Main.
        main, media, track, info = start("main", "main")
        expect(media["video_mode"] == "passthrough", f"H.264 Main is passed through ({media})")
        expect((track["codec"] or "").lower() == "h264" and info.get("profileLevelId") == "4d001f",
               f"the Main ingress's camera is announced H264 4d001f ({info})")
        read_in_order(tab, track, "the Main push (passed through)", "video/h264")
        main.stop()

        # High with "transcode": false: passed through as High; a browser without High is told.
        passed, media, track, info = start("highpass", "high", transcode=False)
        expect(media["video_mode"] == "passthrough", f"with \"transcode\": false H.264 High is passed through ({media})")
        expect((track["codec"] or "").lower() == "h264" and info.get("profileLevelId") == "64001f",
               f"the passed-through camera is announced H264 64001f ({info})")
        if decodes_high:
            read_in_order(tab, track, "the High push (passed through)", "video/h264")
        else:
            before = len(tab.events())
            subscribed = tab.call(f"await ch.subscribe('{track['id']}');")
            expect(subscribed["ok"], f"subscribe to the High track answered ({subscribed.get('error', 'ok')})")
            ended = tab.wait_event("subscriptionDidEnd", lambda args: args and args[0].get("trackId") == track["id"], timeout=WAIT,
                                   after=before)
            expect(ended[0].get("reason") == "codec_unsupported", f"the browser without High is told: subscriptionDidEnd {ended[0]}")
            time.sleep(1)
            sections = tab.run(SUBSCRIBER_SECTIONS_JS)
            expect(not any(s["msid"] == track["id"] for s in sections),
                   f"nothing was offered for the High track (subscriber m-sections: {sections})")
            ok("a browser without an H.264 High decoder is told (codec_unsupported) instead of receiving nothing")
        passed.stop()
    finally:
        for i in ingresses:
            i.stop()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("H.264 Main and High ingress in Chromium", run, wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
