#!/usr/bin/env python3
"""Run by `make test-lab` after the lab's Swift suites, alone (scripts/interop-pass --lab-alone:
its pure-Python decoding and REMB estimator are a core's worth; named without `test_` so that
only that pass picks it).

aiortc (PyPI: a WebRTC stack nobody here wrote) as a subscriber on a shaped link in the network
lab (issue 26, docs/network.md "The lab"): the issue's first report came from such a client, which
sends REMB (its receive-side estimate, from abs-send-time) and no transport-cc feedback, so the
server's own transport-cc estimate is not there and the REMB and receiver reports are all it has.

aiortc runs in this process, in the lab's client namespace (`ClientServerLab`, joined straight to
the server's), speaks docs/protocol.md itself (aiortc_participant.py) and subscribes with
`layer: 'camera_big'` to a Swift publisher beside the server (`srtc join --desc camera_big`:
640×360 + 160×90 VP8 simulcast). A kernel tbf on the server's veth end (burst 8 kB, queue 200 ms,
as the other lab tests) shapes what aiortc receives:

1. 15 s unlimited: no `layer_switched` for bandwidth (the false switch down of the report);
2. 300 kbit/s for 10 s: `camera_small` within 2 s of the drop (the issue's bound), then 160-wide
   frames with no gap over 500 ms until the link returns;
3. 2 Mbit/s: `camera_big` within 8 s of the return (the issue's bound), then 640-wide frames.

aiortc's REMB falls at once when its estimator sees the queue (the server takes a fast fall as
congestion) but climbs back far more slowly than the link returns (its AIMD adds a few kbit/s a
second near the rate it fell from): the way up is a probe the server judges on aiortc's REMB and
receiver reports (docs/network.md, "Probing"). `--trace` prints, per second from the drop and from
the return, what aiortc received (media and probe padding), the REMB values it sent and its NACKs
and PLIs; then the numbers it NACKed that never came and what surrounded them, each probe's first
overuse REMB and NACK, its jitter buffer's forced skips and the tbf's drops (also printed when a
check fails). A probe that overfills the tbf's queue loses padding, each lost one a gap aiortc's
jitter buffer waits for (it hands on frames only in unbroken sequence order, up to 512 packets):
the server answers such a NACK with padding of that number (docs/network.md, "Probing").

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
# The bounds: the small layer within 2 s of the drop, no freeze over 500 ms on it, the big
# layer within 8 s of the link's return.
DOWN_SECONDS, SMALL_GAP_SECONDS, UP_SECONDS = 2.0, 0.5, 8.0
TRACE = "--trace" in sys.argv


class EstimateTrace:
    """What aiortc's own receive-side estimator (aiortc/rate.py, `RemoteBitrateEstimator`) saw and
    sent: every video packet it counted (arrival, payload plus padding bytes, whether it was a
    padding-only probe packet) and every REMB value it returned, with its AIMD state (`near_max`:
    additive increase, about 20 kbit/s a second at these rates; else 8 % a second). The server's
    probe clusters show as the padding-only packets. Printed per second with `--trace`."""

    def __init__(self):
        from aiortc import jitterbuffer, rate, rtcrtpreceiver
        self.packets, self.rembs = [], []
        padding = [False]
        handle, add = rtcrtpreceiver.RTCRtpReceiver._handle_rtp_packet, rate.RemoteBitrateEstimator.add
        trace = self

        async def handle_rtp_packet(receiver, packet, arrival_time_ms):
            # The estimator is fed before the handler's first await: the flag is this packet's.
            padding[0] = not packet.payload and packet.padding_size > 0
            if receiver._RTCRtpReceiver__kind == "video":
                start = bool(packet.payload) and packet.payload[0] & 0x1F == 0x10
                trace.sequence.append((time.time(), packet.sequence_number, padding[0], packet.timestamp, start))
            return await handle(receiver, packet, arrival_time_ms)

        def estimator_add(estimator, arrival_time_ms, abs_send_time, payload_size, ssrc):
            result = add(estimator, arrival_time_ms=arrival_time_ms, abs_send_time=abs_send_time,
                         payload_size=payload_size, ssrc=ssrc)
            now = time.time()
            trace.packets.append((now, payload_size, padding[0]))
            if result is not None:
                control = estimator.rate_control
                trace.rembs.append((now, result[0], control.near_max, control.state.name, estimator.detector.state().name))
            return result

        rtcrtpreceiver.RTCRtpReceiver._handle_rtp_packet = handle_rtp_packet
        rate.RemoteBitrateEstimator.add = estimator_add
        # NACKs and PLIs aiortc sends: a packet lost for good holds its jitter buffer (512 packets).
        self.requests = []
        for kind in ("nack", "pli"):
            self._wrap(rtcrtpreceiver.RTCRtpReceiver, f"_send_rtcp_{kind}", kind)
        # Every video packet's number (time, sequence number, padding-only, timestamp), the numbers
        # each NACK asked for, and the video jitter buffer's forced skips (time, the number it
        # waited for): it hands on a frame only when every number from its origin has come, so a
        # number that never comes holds it until 512 newer ones did (aiortc/jitterbuffer.py).
        self.sequence, self.nacked, self.skips = [], [], []
        send_nack, smart_remove = rtcrtpreceiver.RTCRtpReceiver._send_rtcp_nack, jitterbuffer.JitterBuffer.smart_remove

        async def nack(receiver, media_ssrc, lost):
            trace.nacked.append((time.time(), list(lost)))
            return await send_nack(receiver, media_ssrc, lost)

        def skip(buffer, count):
            if buffer.capacity == 512:
                trace.skips.append((time.time(), buffer._origin))
            return smart_remove(buffer, count)
        rtcrtpreceiver.RTCRtpReceiver._send_rtcp_nack = nack
        jitterbuffer.JitterBuffer.smart_remove = skip

    def _wrap(self, cls, name, kind):
        send, requests = getattr(cls, name), self.requests

        async def wrapped(receiver, *args):
            requests.append((time.time(), kind))
            return await send(receiver, *args)
        setattr(cls, name, wrapped)

    def losses(self, since, until, origin):
        """The numbers aiortc NACKed between `since` and `until`, and each run of them that never
        came: between what (a padding-only packet of the probe, or media: `start` when it begins
        a VP8 frame, RFC 7741 §4.2 S=1 and PID 0) and after how many frame intervals (90 kHz
        timestamps: 0 or one frame's means no whole frame fell in between, so a run after padding
        and before a frame's start was padding too). Then the jitter buffer's forced skips."""
        seen, order = {}, []
        for t, number, pad, stamp, start in self.sequence:
            if number not in seen:
                seen[number] = (t, pad, stamp, start)
        asked = sorted({n for t, lost in self.nacked if since <= t < until for n in lost})
        print(f"  trace: {len(asked)} numbers NACKed, {sum(1 for n in asked if n in seen)} of them came later")
        missing = [n for n in asked if n not in seen]
        runs = []
        for number in missing:
            if runs and runs[-1][-1] == (number - 1) % 65536:
                runs[-1].append(number)
            else:
                runs.append([number])
        for run in runs:
            before, after = seen.get((run[0] - 1) % 65536), seen.get((run[-1] + 1) % 65536)
            describe = lambda p: "?" if p is None else ("padding" if p[1] else "media" + (" (start)" if p[3] else ""))
            gap = f", timestamps {((after[2] - before[2]) % 2**32) / 90:.0f} ms apart" if before and after else ""
            first = next(t for t, lost in self.nacked if run[0] in lost)
            print(f"    never came: {run[0]}–{run[-1]} ({len(run)}; NACKed first at {first - origin:+.2f} s), "
                  f"between {describe(before)} and {describe(after)}{gap}")
        # Each probe (padding-only packets with no pause of 300 ms): when it began and ended at
        # aiortc, and its first overuse REMB and first NACK.
        probes = []
        for t, number, pad, stamp, start in self.sequence:
            if pad and since <= t < until:
                if probes and t - probes[-1][1] < 0.3:
                    probes[-1][1], probes[-1][2] = t, probes[-1][2] + 1
                else:
                    probes.append([t, t, 1])
        for begin, end, count in probes:
            overuse = next((t for t, _, _, _, usage in self.rembs if begin <= t <= end + 0.5 and usage == "OVERUSING"), None)
            nack = next((t for t, _ in self.nacked if begin <= t <= end + 0.5), None)
            mark = lambda t: "none" if t is None else f"{t - begin:+.2f} s"
            print(f"    probe at {begin - origin:+.2f} s: {count} padding packets over {end - begin:.2f} s; first overuse REMB {mark(overuse)}, "
                  f"first NACK {mark(nack)}")
        for t, number in self.skips:
            if since <= t < until:
                print(f"    jitter buffer skipped at {t - origin:+.2f} s, its oldest packet {number}")

    def print(self, since, until, origin, label):
        """Per second from `since` to `until` (times relative to `origin`): kbit/s of media and of
        probe padding aiortc received (payload bytes, as its estimator counts them), the REMB
        values it sent (`*`: additive increase, `!`: overuse seen)."""
        second = since
        print(f"  trace, {label} (s from it: media kbit/s + padding kbit/s received; REMB kbit/s sent)")
        while second < until:
            end = min(until, second + 1)
            media = sum(size for t, size, pad in self.packets if second <= t < end and not pad) * 8 / 1000 / (end - second)
            probe = sum(size for t, size, pad in self.packets if second <= t < end and pad) * 8 / 1000 / (end - second)
            rembs = " ".join(f"{value / 1000:.0f}{'*' if near else ''}{'!' if usage == 'OVERUSING' else ''}"
                             for t, value, near, _, usage in self.rembs if second <= t < end)
            asked = [kind for t, kind in self.requests if second <= t < end]
            requests = f"  ({asked.count('nack')} NACK, {asked.count('pli')} PLI)" if asked else ""
            print(f"    {second - origin:+6.1f} {media:5.0f} + {probe:4.0f}{requests}  REMB {rembs}")
            second = end


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
    trace = EstimateTrace()
    marks = {}
    try:
        await steps(lab, server, trace, marks)
    except BaseException:
        if "narrow" in marks:
            trace.print(marks["narrow"] - 2, time.time(), marks["narrow"], "from the drop to 300 kbit/s")
            trace.losses(marks["narrow"] - 2, time.time(), marks["narrow"])
        raise
    if TRACE:
        trace.print(marks["narrow"] - 2, marks["wide"], marks["narrow"], "from the drop to 300 kbit/s")
        trace.print(marks["wide"], marks["end"], marks["wide"], "from the return to 2 Mbit/s")
        trace.losses(marks["narrow"] - 2, marks["end"], marks["narrow"])


async def steps(lab, server, trace, marks):
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

        narrow_at = marks["narrow"] = time.time()
        lab.limit(300_000)
        down = await until("layer_switched camera_small after the drop to 300 kbit/s", lambda: switch_to(participant, narrow_at, "camera_small"), 10)
        small = await until("a 160-wide frame after the switch down", lambda: first_frame(frames, down, 160), 10)
        await asyncio.sleep(max(0.0, 10 - (time.time() - narrow_at)))

        if TRACE:
            print("  tbf at 300 kbit/s: " + " ".join(lab.queue_statistics().split("\n")[1].split()))
        wide_again_at = marks["wide"] = time.time()
        lab.limit(2_000_000)
        up = await until("layer_switched camera_big after the return to 2 Mbit/s", lambda: switch_to(participant, wide_again_at, "camera_big"),
                         UP_SECONDS + 10)
        big = await until("a 640-wide frame after the switch up", lambda: first_frame(frames, up, 640), 10)
        await asyncio.sleep(2)
        end = marks["end"] = time.time()

        # Up to the return: a pause that lasts past it counts from its last frame to the return.
        shown = [t for t, _, _ in frames if small <= t <= wide_again_at]
        gaps = [b - a for a, b in zip(shown, shown[1:] + [wide_again_at])]
        worst_at = shown[gaps.index(max(gaps))] - narrow_at if gaps else 0
        print(f"  300 kbit/s: layer_switched camera_small {down - narrow_at:.2f} s after (issue: 2 s), first 160-wide frame "
              f"{small - narrow_at:.2f} s after; worst gap between frames on the small layer {max(gaps, default=0):.2f} s "
              f"(from {worst_at:+.2f} s)")
        print(f"  2 Mbit/s again: layer_switched camera_big {up - wide_again_at:.2f} s after (issue: 8 s), first 640-wide frame "
              f"{big - wide_again_at:.2f} s after")
        print("  switches: " + ", ".join(f"{d.get('previous')}→{d.get('layer')} ({d.get('cause')}) at {t - narrow_at:+.2f} s"
                                          for t, kind, d in participant.events if kind == "layer_switched" and t >= start))
        expect(down - narrow_at <= DOWN_SECONDS, f"camera_small within {DOWN_SECONDS:.0f} s of the drop ({down - narrow_at:.2f} s)")
        expect(max(gaps, default=0) <= SMALL_GAP_SECONDS,
               f"no gap over {SMALL_GAP_SECONDS} s between frames on the small layer ({max(gaps, default=0):.2f} s)")
        expect(up - wide_again_at <= UP_SECONDS, f"camera_big within {UP_SECONDS:.0f} s of the return ({up - wide_again_at:.2f} s)")
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
