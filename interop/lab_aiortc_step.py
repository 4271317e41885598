#!/usr/bin/env python3
"""A diagnostic script, not in `make test` (its first small frame after the switch down came 8.5 s
and once over 10 s late, not investigated): aiortc (PyPI: a WebRTC stack nobody here wrote) as a
subscriber on a shaped link in the network
lab (issue 26, docs/network.md "The lab"): the issue's first report came from such a client, which
sends REMB (its receive-side estimate, from abs-send-time) and no transport-cc feedback, so the
server's own transport-cc estimate is not there and the REMB is all it has.

aiortc runs in this process, in the lab's client namespace (`ClientServerLab`, joined straight to
the server's), speaks docs/protocol.md itself (aiortc_participant.py) and subscribes with
`layer: 'camera_big'` to a Swift publisher beside the server (`srtc join --desc camera_big`:
640×360 + 160×90 VP8 simulcast). A kernel tbf on the server's veth end (burst 8 kB, queue 200 ms,
as the other lab tests) shapes what aiortc receives:

1. 15 s unlimited: no `layer_switched` for bandwidth (the false switch down of the report);
2. 300 kbit/s for 10 s: `camera_small` within 5 s of the drop, then 160-wide frames;
3. 2 Mbit/s until `camera_big` is back: within 30 s of the return, then 640-wide frames.

The issue's 2 s and 8 s are printed against, not asserted: they are for transport-cc receivers
(the Swift SDK and Chromium tests assert them). With REMB only the server follows aiortc's own
estimate, which falls about 2.4 s after the drop and climbs back at its own pace while probed
(about 20 s here): it recovers, later.

Every third decoded frame's number is read from its pixels: in order on each layer throughout.
"""
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, read_code_band, run_browser_lab_test  # noqa: E402
from aiortc_participant import AiortcParticipant  # noqa: E402

CHANNEL = "lab"
WAIT = 30
UNLIMITED_SECONDS = 15
ISSUE_DOWN_SECONDS, ISSUE_UP_SECONDS = 2.0, 8.0  # printed against: the issue's bounds, for transport-cc receivers
# Asserted for a REMB-only receiver: the server acts on aiortc's REMB, which falls when aiortc's
# own estimator sees the queue (2.4 s after the drop) and rises at its own pace while the server
# probes (seen 20 s from 300 kbit/s to the big layer's rate); docs/network.md, "Probing".
REMB_DOWN_SECONDS, REMB_UP_SECONDS = 5.0, 60.0


async def watch(track, frames):
    """Appends (time, width, frame number or None) for every frame aiortc decodes."""
    while True:
        frame = await track.recv()
        luma = frame.planes[0]
        # Every third frame's number is read (pure Python, about as costly as aiortc's decoding).
        read = frame.width >= 64 and len(frames) % 3 == 0
        number = read_code_band(bytes(luma), luma.line_size, frame.width, frame.height) if read else None
        frames.append((time.time(), frame.width, number))


async def until(what, found, timeout):
    """Polls `found()` every 50 ms until it returns something; returns it."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = found()
        if value is not None:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what}: not within {timeout} s")


def switches(participant, since):
    """The `layer_switched` events for bandwidth since `since`: (time, data)."""
    return [(t, data) for t, kind, data in participant.events
            if kind == "layer_switched" and t >= since and data.get("cause") == "bandwidth"]


def switch_to(participant, since, layer):
    return next((t for t, data in switches(participant, since) if data.get("layer") == layer), None)


def first_frame(frames, since, width):
    return next((t for t, w, _ in frames if t >= since and w == width), None)


async def call(lab, server, bot):
    participant = AiortcParticipant(server.base, server.channel_token(CHANNEL, "aiortc"), sdk="aiortc-lab")
    received = asyncio.get_running_loop().create_future()
    participant.subscriber.on("track", lambda track: received.done() or received.set_result(track))
    frames, watcher = [], None
    try:
        await participant.join()
        video = await participant.wait_track(lambda t: t["uid"] == "cam" and t["kind"] == "video", WAIT)
        await participant.request("subscribe", {"track_id": video["id"], "layer": "camera_big"})
        track = await asyncio.wait_for(received, WAIT)
        watcher = asyncio.ensure_future(watch(track, frames))
        await until("640-wide frames at aiortc", lambda: first_frame(frames, 0, 640), WAIT)
        ok("aiortc (in its namespace) decodes the bot's camera_big, 640 wide")

        start = time.time()
        await asyncio.sleep(UNLIMITED_SECONDS)
        unlimited = switches(participant, start)
        widths = sorted({w for t, w, _ in frames if t >= start})
        print(f"network lab (aiortc, REMB only), unlimited {UNLIMITED_SECONDS} s: {len(unlimited)} bandwidth switches, "
              f"{sum(1 for t, _, _ in frames if t >= start)} frames, widths {widths}")
        expect(not unlimited and widths == [640], f"no switch for bandwidth on an unlimited link ({unlimited}, widths {widths})")

        narrow_at = time.time()
        lab.limit(300_000)
        down = await until("layer_switched camera_small after the drop to 300 kbit/s", lambda: switch_to(participant, narrow_at, "camera_small"), 10)
        small = await until("a 160-wide frame after the switch down", lambda: first_frame(frames, down, 160), 10)
        await asyncio.sleep(max(0.0, 10 - (time.time() - narrow_at)))

        wide_again_at = time.time()
        lab.limit(2_000_000)
        up = await until("layer_switched camera_big after the return to 2 Mbit/s", lambda: switch_to(participant, wide_again_at, "camera_big"),
                         REMB_UP_SECONDS)
        big = await until("a 640-wide frame after the switch up", lambda: first_frame(frames, up, 640), 10)
        await asyncio.sleep(2)
        end = time.time()

        gaps = [b - a for (a, _, _), (b, _, _) in zip(frames, frames[1:]) if small <= a and b <= wide_again_at]
        print(f"  300 kbit/s: layer_switched camera_small {down - narrow_at:.2f} s after (issue: 2 s), first 160-wide frame "
              f"{small - narrow_at:.2f} s after; worst gap between frames on the small layer {max(gaps, default=0):.2f} s")
        print(f"  2 Mbit/s again: layer_switched camera_big {up - wide_again_at:.2f} s after (issue: 8 s), first 640-wide frame "
              f"{big - wide_again_at:.2f} s after")
        print("  switches: " + ", ".join(f"{d.get('previous')}→{d.get('layer')} ({d.get('cause')}) at {t - narrow_at:+.2f} s"
                                          for t, kind, d in participant.events if kind == "layer_switched" and t >= start))
        expect(down - narrow_at <= REMB_DOWN_SECONDS, f"camera_small within {REMB_DOWN_SECONDS:.0f} s of the drop ({down - narrow_at:.2f} s)")
        expect(up - wide_again_at <= REMB_UP_SECONDS, f"camera_big within {REMB_UP_SECONDS:.0f} s of the return ({up - wide_again_at:.2f} s)")
        for width in (640, 160):
            numbers = [n for t, w, n in frames if w == width and n is not None and start <= t <= end]
            backwards = [(a, b) for a, b in zip(numbers, numbers[1:]) if b <= a]
            expect(len(numbers) > 10 and not backwards,
                   f"every {width}-wide frame number read in order ({len(numbers)} read; out of order: {backwards[:10]})")
    finally:
        if watcher:
            watcher.cancel()
        await participant.close()


def run(lab, server, _driver, bot):
    asyncio.run(call(lab, server, bot))


def main():
    return run_browser_lab_test("aiortc lab step down", run, CHANNEL, "cam",
                                ("--desc", "camera_big", "--no-subscribe", "--stats-interval", "5"), wait_seconds=WAIT, browser=False)


if __name__ == "__main__":
    sys.exit(main())
