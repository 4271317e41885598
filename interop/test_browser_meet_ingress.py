#!/usr/bin/env python3
"""An RTMP ingress in the meeting app (docs/meeting-protocol.md, "Ingress"; docs/ingress.md).

A real srtc-server with the demo sign-in; the host runs `/meet/` in headless Chromium:

- the host starts a meeting and, in the participants panel, clicks "Stream in (RTMP)" (web
  SMeeting's `adminCreateIngress`, the meeting backend's `admin_create_ingress`, which asks the
  server's ingress module): the panel shows the server URL and stream key, and a tile for the
  stream appears (its avatar shown: nobody pushes yet);
- ffmpeg (from the test) pushes a 320×240 H.264 Constrained Baseline test pattern and a tone to
  that URL: the server lists the ingress `publishing` in the meeting's channel, passed through as
  H.264, and the stream's tile at the host decodes (`getStats()` inbound-rtp `framesDecoded` of the
  tile's own track rises; the codec the browser decodes is printed);
- Remove (the panel's button, `admin_delete_ingress`) ends the push, the tile goes and the server
  lists no ingress.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import dump_browsers, expect, ok, reexec_in_loopback_namespace, run_browser_test, wait_until  # noqa: E402
from test_browser_meet import OUTPUT, TILES_JS, WAIT_SECONDS, Participant, sign_in  # noqa: E402

# The codec of the inbound video of the tile keyed `arguments[0]` (its <video>'s track).
TILE_CODEC_JS = """
const done = arguments[1];
(async () => {
  const m = window.meetApp.meeting;
  const v = document.querySelector(`#stage .tile[data-key="${arguments[0]}"] video`);
  const track = v?.srcObject?.getVideoTracks()[0];
  const stats = await m.channel.getStats();
  let codecId = null, mime = null;
  stats.subscribe?.forEach((r) => { if (r.type === 'inbound-rtp' && r.kind === 'video' && track && r.trackIdentifier === track.id) codecId = r.codecId; });
  stats.subscribe?.forEach((r) => { if (r.type === 'codec' && r.id === codecId) mime = r.mimeType; });
  done(mime);
})().catch((e) => done(String(e)));
"""


def push(url, log):
    """ffmpeg pushing 30 s of a numbered test pattern (Constrained Baseline, a key frame a second) and a tone."""
    return subprocess.Popen(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
         "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
         "-t", "30", "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
         "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "flv", url],
        stdout=subprocess.DEVNULL, stderr=log)


def run(server, driver):
    os.makedirs(OUTPUT, exist_ok=True)
    driver.set_window_size(1280, 800)
    host = Participant(driver, driver.current_window_handle, "Host")
    sign_in(host, server.base, "Hana Host")
    host.type("#start-title-input", "Stream review")
    host.click("#start-button")
    host.wait_true("return !document.getElementById('meeting').hidden && window.meetApp.meeting.isInRoom", "the meeting screen")
    channel = host.run("return window.meetApp.meeting.channel.info.channel")

    host.click("#btn-people")
    host.click('[data-action="ingress"]')
    made = host.wait_true("const row = document.querySelector('#room-controls .ingress');"
                          " const url = row?.querySelector('[data-ingress-url]')?.textContent;"
                          " return url ? {url, key: row.querySelector('[data-ingress-key]').textContent, uid: row.dataset.uid,"
                          " id: row.dataset.ingressId} : null;", "the ingress's URL and key in the participants panel")
    expect(made["url"].startswith("rtmp://") and made["url"].endswith("/live/" + made["key"]), f"an RTMP URL ending in the key ({made})")
    ok(f"the host made ingress {made['id']} as {made['uid']}: push to {made['url']}")
    host.wait_true(f"return !!document.querySelector('#stage .tile.ingress[data-key=\"{made['uid']}\"]')", "the stream's tile")
    status, listed = server.call("POST", "/server/v1/ingress/list", {"channel": channel})
    expect(status == 200 and [i["uid"] for i in listed["ingresses"]] == [made["uid"]], f"ingress/list of {channel}: {listed}")

    log = open(os.path.join(OUTPUT, "ingress-ffmpeg.log"), "w")
    pushers = []

    def taken():
        # A listener refuses for a moment between two connections: push again while it does.
        if not pushers or pushers[-1].poll() is not None:
            pushers.append(push(made["url"], log))
        ingress = server.call("POST", "/server/v1/ingress/list", {"channel": channel})[1]["ingresses"][0]
        return ingress if ingress["status"] == "publishing" else None

    started = time.time()
    try:
        ingress = wait_until(taken, "the push taken by the ingress", 60, 0.5)
        expect(ingress["media"]["video_mode"] == "passthrough", f"H.264 Baseline passed through ({ingress['media']})")
        ok(f"ffmpeg's push taken after {len(pushers)} attempt(s): {ingress['media']}")

        def tile_frames():
            tiles = host.run_async(TILES_JS)["tiles"]
            tile = next((t for t in tiles if t["key"] == made["uid"]), None)
            return tile["frames"] if tile else 0

        first = wait_until(lambda: tile_frames() or None, "the stream's tile decoding", 60, 0.3)
        after = wait_until(lambda: (lambda f: f if f > first + 15 else None)(tile_frames()), "the stream's frames rising", 30, 0.3)
        codec = host.run_async(TILE_CODEC_JS, made["uid"])
        expect(host.run(f"return document.querySelector('#stage .tile[data-key=\"{made['uid']}\"] .avatar').hidden"), "the avatar gives way to the video")
        host.driver.save_screenshot(os.path.join(OUTPUT, "ingress.png"))
        ok(f"the stream's tile decodes in Chromium ({codec}): {after} frames, first picture {time.time() - started:.1f} s after the first push")

        host.click(f'[data-action="ingress-remove:{made["id"]}"]')
        host.wait_true(f"return !document.querySelector('#stage .tile[data-key=\"{made['uid']}\"]')", "the stream's tile gone")
        wait_until(lambda: server.call("POST", "/server/v1/ingress/list", {"channel": channel})[1]["ingresses"] == [] or None,
                   "no ingress left in the meeting's channel", WAIT_SECONDS)
        ok("Remove ended the ingress: its tile is gone and ingress/list is empty")
    finally:
        for p in pushers:
            if p.poll() is None:
                p.kill()
            p.wait()
        log.close()


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("meeting ingress", run, ("--demo-auth", "loopback"), (), WAIT_SECONDS,
                            lambda driver: dump_browsers(driver, ("Host",), OUTPUT))


if __name__ == "__main__":
    sys.exit(main())
