#!/usr/bin/env python3
"""Join request → first decoded remote video frame for two WebRTC clients nobody here wrote:
aiortc (a Python stack, speaking docs/protocol.md itself) and headless Chromium (web/srtc.js).
`srtc-bench sdk` runs it against its own server while its publisher sends a 720p simulcast
camera, right after measuring the Swift SDK the same way; it prints one line per client.
Figures are printed, never asserted.

usage: bench_first_frame.py --url http://127.0.0.1:PORT --channel C --app-id ID --app-key KEY [--joins 5]
"""
import argparse
import asyncio
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import call, make_driver  # noqa: E402
from aiortc_participant import AiortcParticipant  # noqa: E402


def grant(args, uid):
    status, body = call(args.url, args.app_id, args.app_key, "POST", "/server/v1/channel/grant", {"channel": args.channel, "uid": uid})
    if status != 200:
        raise SystemExit(f"grant for {uid}: {status} {body}")
    return body["token"]


# ---- aiortc -------------------------------------------------------------------------------------

async def aiortc_join(args, uid):
    """Joins, subscribes to the first video track, answers the server's offers; returns the ms from
    sending `join` to the first decoded frame. ICE checks start as soon as the answer is set."""
    participant = AiortcParticipant(args.url, grant(args, uid), sdk="aiortc-bench")
    first_frame = asyncio.get_running_loop().create_future()

    @participant.subscriber.on("track")
    def on_track(track):
        if track.kind != "video":
            return

        async def read():
            await track.recv()
            if not first_frame.done():
                first_frame.set_result(time.perf_counter())
        asyncio.ensure_future(read())

    try:
        start = time.perf_counter()
        await participant.join()
        video = await participant.wait_track(lambda t: t["kind"] == "video", 10)
        await participant.request("subscribe", {"track_id": video["id"], "layer": "camera_big"})
        at = await asyncio.wait_for(first_frame, 10)
        return (at - start) * 1000
    finally:
        await participant.close()


def bench_aiortc(args):
    times = []
    for i in range(args.joins):
        try:
            times.append(asyncio.run(aiortc_join(args, f"aiortc{i}")))
        except Exception as error:  # a failed join is reported, the others still count
            print(f"aiortc join {i} failed: {type(error).__name__}: {error}")
    report("aiortc 1.16", times)


# ---- Chromium -----------------------------------------------------------------------------------

CHROMIUM_JS = """
const [token, done] = arguments;
import('/sdk/srtc.js').then(async (srtc) => {
  const ch = new srtc.SRTCChannel();
  const video = document.createElement('video');
  video.muted = true; video.autoplay = true; video.playsInline = true;
  document.body.appendChild(video);
  let start = 0, subscribed = false;
  ch.on('didAddTrack', (user, track) => {
    if (track.kind !== 'video' || subscribed) return;
    subscribed = true;
    ch.subscribe(track, {layer: 'camera_big'}).catch((e) => done({error: String(e)}));
  });
  ch.on('trackDidBindRtcTrack', (remote) => {
    if (remote.kind !== 'video') return;
    video.srcObject = new MediaStream([remote.mediaStreamTrack]);
    video.requestVideoFrameCallback(() => done({ms: performance.now() - start}));
  });
  start = performance.now();
  await ch.join(location.origin, token);
}).catch((e) => done({error: String(e)}));
"""


def bench_chromium(args):
    times = []
    driver = make_driver(20)
    try:
        for i in range(args.joins):
            driver.get(args.url + "/")
            result = driver.execute_async_script(CHROMIUM_JS, grant(args, f"chromium{i}"))
            if "ms" in result:
                times.append(result["ms"])
            else:
                print(f"chromium join {i} failed: {result}")
    finally:
        driver.quit()
    report("Chromium (web SDK)", times)


def report(client, times):
    if not times:
        print(f"join to first decoded remote frame, {client}: no frame arrived")
        return
    times.sort()
    print(f"join to first decoded remote frame, {client} (720p simulcast, loopback): median {statistics.median(times):.0f} ms, "
          f"min {times[0]:.0f} ms, max {times[-1]:.0f} ms over {len(times)} joins")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--channel", required=True)
    parser.add_argument("--app-id", required=True)
    parser.add_argument("--app-key", required=True)
    parser.add_argument("--joins", type=int, default=5)
    args = parser.parse_args()
    bench_aiortc(args)
    bench_chromium(args)


if __name__ == "__main__":
    main()
