#!/usr/bin/env python3
"""Chromium subscribers through the lab's loss relay (issue 26, docs/network.md "The lab"): two
browser windows (web SDK) in a client namespace subscribe to a Swift publisher beside the server
(`srtc join --desc camera_big`: 640×360 + 160×90 VP8 simulcast and a 440 Hz tone, sent in RED,
RFC 2198, since the server answers RED first). One window's subscribe answer keeps RED, the
other's has RED taken out (the SFU then strips the publisher's RED to its primary block for it).
Everything the browser exchanges with the server's media ports passes `srtc-lab-relay` in the
server's namespace (`ClientServerLab.start_relay`), which delays each direction by 20 ms (a 40 ms
round trip, as a short broadband path: a NACK's resend comes a round trip after the loss) and
loses, toward the browser, in sequence:

1. 5 % of the datagrams at random, 15 s;
2. 10 % in fades: everything for 80 ms in every 800 ms (4 audio packets in a row), 15 s.

Each window's flows draw the random loss alike (one seed for every flow); the fades hit the same
moments of both, so both windows lose the same audio packets whatever video layer each receives.
The relay traces what it sends toward the browser (`LabRelay.trace`: the RTP header of each
datagram, kept or dropped; SRTP leaves it in clear), and the test prints, per window, the audio
packets lost, their runs, which the next packet's RED block could rebuild and which a resend (the
SFU answering a NACK) brought back and how late. The pages sample the subscribe connection's
`inbound-rtp` every 250 ms (`interop/test_browser_lab_step.py`'s page). Asserted per phase: the
relay lost datagrams, the RED window's audio packets carry a redundant block, the issue's bounds
(audio concealment, `concealedSamples / totalSamplesReceived`, under 3 % with RED and lower than
without, or none at all with RED), under 12 % without RED, video decoded and no freeze
(`freezeCount` / `totalFreezesDuration`) of 1 s or more in either window: each loss repaired by
NACK or a key frame within 1 s, the resends on RTX (RFC 4588: Chromium's `retransmittedPacketsReceived`
grows, the relay's trace shows no copy on the media SSRC and an RTX packet after each dropped VP8
packet), and no layer switch for bandwidth in either window (loss is not congestion). Printed: the relay's drops and trace, each window's concealment, payload bytes per audio
packet, audio NACKs, discarded packets, jitter buffer delay and target, video NACKs, PLIs,
freezes, frames and layer switches. Why the RED window concealed more before the web SDK left
room for resends in its jitter buffer: docs/network.md, "RED and Chromium's jitter buffer".
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import Tab, expect, ok, run_browser_lab_test  # noqa: E402
from test_browser_lab_step import BOT_ARGS, PLAY_JS, SETUP_JS, Recording, dump, wait_for  # noqa: E402
from test_browser_red_added import STRIP_RED_JS  # noqa: E402

CHANNEL = "labloss"
WAIT_SECONDS = 30
DELAY_MS = 20
PHASE_SECONDS = 15
# The first seconds of a phase are not measured: NetEq's buffer and the NACK lists settle.
SETTLE_SECONDS = 2
# The bursts are fades in time (80 ms lost in every 800 ms: 4 audio packets in a row), the same
# moments for both windows: bursts counted in datagrams (10 in every 100) lost runs of 3-4 audio
# packets in a window that received the big layer and 7-8 in one the allocator had moved to the
# small layer (fewer video datagrams between two audio packets), so the windows did not lose the
# same audio and their concealment could not be compared.
PHASES = (("5 % random", {"loss": 0.05}), ("10 % in fades of 80 ms", {"fade": (80, 800)}))
CONCEALMENT_LIMIT = 0.03  # the issue's: with RED under 3 %, and lower than without
CONCEALMENT_BOUND = 0.12  # without RED: at most about the link's loss
LONGEST_FREEZE = 1.0

# The page of the step-down test with more of inbound-rtp: audio payload bytes and packets lost,
# video NACKs and key-frame requests sent.
PAGE_JS = SETUP_JS.replace(
    "s.audio += r.packetsReceived || 0;",
    "s.audio += r.packetsReceived || 0; s.audioBytes = (s.audioBytes || 0) + (r.bytesReceived || 0); "
    "s.audioLost = (s.audioLost || 0) + (r.packetsLost || 0); s.audioNacks = r.nackCount || 0; "
    "s.discarded = r.packetsDiscarded || 0; s.events = r.concealmentEvents || 0; s.jbDelay = r.jitterBufferDelay || 0; "
    "s.jbTarget = r.jitterBufferTargetDelay || 0; s.jbEmitted = r.jitterBufferEmittedCount || 0; "
    "s.decel = r.insertedSamplesForDeceleration || 0; s.accel = r.removedSamplesForAcceleration || 0;").replace(
    "s.freezes = video.freezeCount || 0;",
    "s.freezes = video.freezeCount || 0; s.nacks = video.nackCount || 0; s.plis = video.pliCount || 0; "
    "s.videoLost = video.packetsLost || 0; s.rtx = video.retransmittedPacketsReceived || 0;")
assert PAGE_JS.count("s.audioLost =") == 1 and PAGE_JS.count("s.nacks =") == 1
# Without RED: the subscribe answer loses it (the offer still lists it; the SFU then strips RED).
PLAIN_PAGE_JS = STRIP_RED_JS.replace("createOffer", "createAnswer") + PAGE_JS


AUDIO_PAYLOAD_TYPES = (111, 63)  # the server's Opus and RED numbers in its subscribe offers
VP8_PAYLOAD_TYPE, RTX_PAYLOAD_TYPE = 96, 97  # VP8 and its RTX (apt=96) in the subscribe offers
REPAIR_WINDOW_MS = 1000


def video_repairs(path):
    """What the relay's trace shows of each window's video resends, per client port: the VP8
    originals the relay dropped, how many of them an RTX packet (RFC 4588: the RTX SSRC and
    payload type, the original's timestamp; its OSN is inside SRTP's encrypted payload) with the
    same timestamp followed within `REPAIR_WINDOW_MS`, the RTX packets, and the copies (a VP8
    packet whose number was sent before: the resends without RTX). A probe's padding-only RTX
    packet carries the last frame's timestamp, so it could stand for the resend of a packet of
    that frame: the count of repaired originals is an upper bound, the RTX and copy counts exact."""
    streams = {}
    with open(path) as lines:
        for line in lines:
            f = line.split()
            if len(f) < 9 or f[3] != "rtp" or int(f[4]) not in (VP8_PAYLOAD_TYPE, RTX_PAYLOAD_TYPE):
                continue
            ms, port, kept, pt, ssrc, seq, ts = int(f[0]), int(f[1]), f[2] == "K", int(f[4]), int(f[5]), int(f[6]), int(f[7])
            st = streams.setdefault(port, {"orig": {}, "copies": 0, "rtx": []})
            if pt == RTX_PAYLOAD_TYPE:
                st["rtx"].append((ms, ts))
            elif (ssrc, seq) in st["orig"]:
                st["copies"] += 1
            else:
                st["orig"][(ssrc, seq)] = (ms, kept, ts)
    repairs = {}
    for port, st in streams.items():
        lost = [(ms, ts) for ms, kept, ts in st["orig"].values() if not kept]
        repaired = [1 for ms, ts in lost if any(ts == rts and ms < rms <= ms + REPAIR_WINDOW_MS for rms, rts in st["rtx"])]
        repairs[port] = {"originals": len(st["orig"]), "lost": len(lost), "followed by RTX": len(repaired),
                         "rtx": len(st["rtx"]), "copies": st["copies"]}
    return repairs


def audio_fates(path):
    """What the relay did to each window's audio (its trace, `LabRelay.trace`), per client port:
    the originals (first sending of a sequence number) lost, the runs of consecutive originals
    lost, which lost ones the next original (kept) could rebuild from its RED block, which a resend
    (the SFU answering a NACK, same number again) brought back and how late, and which neither."""
    streams = {}
    with open(path) as lines:
        for line in lines:
            f = line.split()
            if len(f) < 9 or f[3] != "rtp" or int(f[4]) not in AUDIO_PAYLOAD_TYPES:
                continue
            ms, port, kept, seq, size = int(f[0]), int(f[1]), f[2] == "K", int(f[6]), int(f[8])
            st = streams.setdefault(port, {"first": None, "orig": {}, "resends": {}, "types": set()})
            st["types"].add(int(f[4]))
            if st["first"] is None:
                st["first"] = seq
            n = (seq - st["first"]) % 65536
            if n > 60000:  # before the first one seen (a resend of an older one)
                continue
            if n in st["orig"]:
                st["resends"].setdefault(n, []).append((ms, kept))
            else:
                st["orig"][n] = (ms, kept, size)
    fates = {}
    for port, st in streams.items():
        orig = st["orig"]
        lost = sorted(n for n, (_, kept, _) in orig.items() if not kept)
        runs, run = {}, 0
        for n in sorted(orig):
            if not orig[n][1]:
                run += 1
            elif run:
                runs[run] = runs.get(run, 0) + 1
                run = 0
        by_red = [n for n in lost if n + 1 in orig and orig[n + 1][1]]
        resent = {}
        for n in lost:
            late = [ms - orig[n][0] for ms, kept in st["resends"].get(n, []) if kept]
            if late:
                resent[n] = min(late)
        sizes = sorted(size for _, kept, size in orig.values() if kept)
        fates[port] = {"window": "RED" if 63 in st["types"] else "no RED", "packets": len(orig), "lost": len(lost), "runs": dict(sorted(runs.items())),
                       "next kept": len(by_red), "resent": len(resent),
                       "resend ms": sorted(resent.values()),
                       "neither": len([n for n in lost if n not in resent and n not in by_red]),
                       "only resend": len([n for n in lost if n in resent and n not in by_red]),
                       "resends": sum(len(v) for v in st["resends"].values()),
                       "median bytes": sizes[len(sizes) // 2] if sizes else 0}
    return fates


def delta(samples, key):
    return (samples[-1].get(key) or 0) - (samples[0].get(key) or 0) if len(samples) > 1 else 0


def figures(recording, start, end):
    """What one window saw between `start` and `end`."""
    samples = recording.between(start, end)
    concealed, total = recording.concealment(start, end)
    packets = delta(samples, "audio")
    count, frozen, longest = recording.worst_freeze(start, end)
    return {"concealment": concealed / max(1, total), "concealed": concealed, "samples": total,
            "bytes": delta(samples, "audioBytes") / max(1, packets), "packets": packets,
            "freezes": count, "frozen": frozen, "longest": longest, "frames": delta(samples, "frames"),
            "audioNacks": delta(samples, "audioNacks"), "discarded": delta(samples, "discarded"),
            "events": delta(samples, "events"), "jb": delta(samples, "jbDelay") / max(1, delta(samples, "jbEmitted")) * 1000,
            "target": delta(samples, "jbTarget") / max(1, delta(samples, "jbEmitted")) * 1000,
            "decel": delta(samples, "decel"), "accel": delta(samples, "accel"),
            "nacks": delta(samples, "nacks"), "plis": delta(samples, "plis"), "gap": recording.worst_gap(start, end),
            "rtx": delta(samples, "rtx"),
            "width": samples[-1]["width"] if samples else 0}


def run(lab, server, driver, bot):
    relay = lab.start_relay(server)
    relay.shape(down={"delay": DELAY_MS}, up={"delay": DELAY_MS})
    pages = {"RED": Tab.joined(driver, server, "RED", CHANNEL, "red", PAGE_JS),
             "no RED": Tab.joined(driver, server, "no RED", CHANNEL, "plain", PLAIN_PAGE_JS, new_window=True)}
    for name, page in pages.items():
        wait_for(page, f"the {name} window decodes the bot's camera_big", lambda r: r.first_width(0, 640), WAIT_SECONDS)
        expect(page.run(PLAY_JS) == ["audio", "video"], f"the {name} window plays the bot's audio and video")
    answers = {name: page.run("return window.ch.peerConnections.subscribe.localDescription.sdp;") for name, page in pages.items()}
    expect("red/48000/2" in answers["RED"] and "red/48000/2" not in answers["no RED"],
           "one subscribe answer keeps RED, the other has none")
    expect(all(f"a=rtpmap:{RTX_PAYLOAD_TYPE} rtx/90000" in a and f"apt={VP8_PAYLOAD_TYPE}" in a for a in answers.values()),
           "both subscribe answers keep RTX for VP8")
    for name, page in pages.items():
        wait_for(page, f"the {name} window counts received audio samples", lambda r: r.last().get("samples") or None, WAIT_SECONDS)
    flows = relay.stats()["flows"]
    expect(flows >= 2, f"the browser's media passes the relay ({flows} flows)")
    time.sleep(2)

    results = []
    for index, (title, shape) in enumerate(PHASES):
        trace = f"/tmp/srtc-lab-loss-trace-{os.getpid()}-{index}.txt"
        relay.trace(trace)
        relay.shape(down=dict(shape, delay=DELAY_MS), up={"delay": DELAY_MS})
        started = time.time()
        time.sleep(PHASE_SECONDS)
        ended = time.time()
        counters = relay.stats()
        relay.shape(down={"delay": DELAY_MS}, up={"delay": DELAY_MS})
        relay.trace(None)
        for port, fate in audio_fates(trace).items():
            late = fate.pop("resend ms")
            fate["resend ms (median, max)"] = (late[len(late) // 2], late[-1]) if late else None
            print(f"  relay trace, audio toward port {port}: {fate}")
        repairs = video_repairs(trace)
        for port, repair in repairs.items():
            print(f"  relay trace, video toward port {port}: {repair}")
        os.unlink(trace)
        seen = {name: figures(Recording(page), started + SETTLE_SECONDS, ended) for name, page in pages.items()}
        switches = {name: [s for s in Recording(page).switches if started <= s["t"] <= ended] for name, page in pages.items()}
        down = counters["downlink"]
        lost = down["randomlyLost"] + down["burstLost"]
        print(f"network lab (Chromium through the relay), {title} toward the browser, {PHASE_SECONDS} s, "
              f"{DELAY_MS} ms each way: {lost} of {down['offered']} datagrams lost ({100.0 * lost / max(1, down['offered']):.1f} %)")
        for name, f in seen.items():
            print(f"  {name}: audio {f['concealed']} of {f['samples']} samples concealed ({f['concealment'] * 100:.2f} %), "
                  f"{f['packets']} packets of {f['bytes']:.1f} payload bytes, {f['audioNacks']} NACKs, {f['discarded']} discarded, "
                  f"{f['events']} concealment events, jitter buffer {f['jb']:.0f} ms (target {f['target']:.0f}), "
                  f"{f['decel']} samples inserted, {f['accel']} removed; video {f['frames']} frames ({f['width']} wide), "
                  f"{f['nacks']} NACKs, {f['rtx']} retransmitted packets received, {f['plis']} PLIs, {f['freezes']} freezes ({f['frozen']:.2f} s, longest {f['longest']:.2f} s), "
                  f"worst gap between samples with new frames {f['gap']:.2f} s; switches {switches[name]}")
        results.append((title, lost, seen, switches, repairs))
        time.sleep(3)  # clean between the phases

    for title, lost, seen, switches, repairs in results:
        red, plain = seen["RED"], seen["no RED"]
        expect(lost > 0, f"{title}: the relay lost datagrams toward the browser ({lost})")
        # Resends go on the RTX stream (docs/network.md, "RTX"): Chromium counts them as
        # retransmissions, the relay saw no copy on the media SSRC, and every VP8 original it
        # dropped was followed by an RTX packet of its frame (the NACKs were answered).
        video = [r for r in repairs.values() if r["originals"] > 0]
        expect(len(video) == 2, f"{title}: the relay traced both windows' video ({len(video)})")
        for r in video:
            expect(r["lost"] > 0 and r["copies"] == 0 and r["rtx"] > 0,
                   f"{title}: lost video was resent on RTX only ({r['lost']} lost, {r['rtx']} RTX packets, {r['copies']} copies)")
            # The issue allows a key frame instead of a resend ("by NACK/RTX or a key frame"):
            # Chromium gives a frame up for a PLI when a resend is lost too, and a packet dropped
            # in the trace's last round trip has its resend after the trace. So up to 2 % (at
            # least one) may go without an RTX packet of their frame; the freeze bound checks
            # that the video recovered.
            expect(r["lost"] - r["followed by RTX"] <= max(1, r["lost"] // 50),
                   f"{title}: lost VP8 originals followed by an RTX packet of their frame ({r['followed by RTX']} of {r['lost']})")
        expect(red["bytes"] > plain["bytes"] * 1.3, f"{title}: the RED window's audio packets carry a redundant block "
               f"({red['bytes']:.1f} payload bytes against {plain['bytes']:.1f})")
        # The bounds. "Lower" when neither window concealed anything cannot hold: then
        # RED concealing nothing is the pass.
        print(f"  {title}: concealed with RED {red['concealment'] * 100:.2f} % (issue: under {CONCEALMENT_LIMIT * 100:.0f} %), "
              f"without {plain['concealment'] * 100:.2f} % (issue: RED lower)")
        expect(red["concealment"] < CONCEALMENT_LIMIT, f"{title}: the RED window conceals {red['concealment'] * 100:.2f} % "
               f"of samples (issue: under {CONCEALMENT_LIMIT * 100:.0f} %)")
        expect(red["concealed"] < plain["concealed"] or red["concealed"] == 0,
               f"{title}: the RED window conceals less than the plain one ({red['concealed']} against {plain['concealed']} samples)")
        expect(plain["concealment"] < CONCEALMENT_BOUND, f"{title}: the no RED window conceals {plain['concealment'] * 100:.2f} % "
               f"of samples (under {CONCEALMENT_BOUND * 100:.0f} %)")
        for name, f in seen.items():
            # Loss through the relay is not congestion (its delay stays flat): no layer goes down
            # for bandwidth (docs/network.md, "Loss is not congestion").
            down = [s for s in switches[name] if s.get("cause") == "bandwidth"]
            expect(not down, f"{title}: the {name} window keeps its layer under loss alone (switches for bandwidth: {down})")
            expect(f["frames"] > PHASE_SECONDS * 10, f"{title}: the {name} window decodes video ({f['frames']} frames)")
            expect(f["rtx"] > 0, f"{title}: the {name} window received video retransmissions on RTX "
                   f"(inbound-rtp retransmittedPacketsReceived {f['rtx']})")
            expect(f["longest"] < LONGEST_FREEZE, f"{title}: the {name} window's longest freeze {f['longest']:.2f} s "
                   f"(under {LONGEST_FREEZE:.0f} s)")
    ok("Chromium through random loss and fades: with RED under 3 % concealed and less than without; video repaired within 1 s; "
       "no switch for bandwidth")


def main():
    return run_browser_lab_test("browser lab loss through the relay", run, CHANNEL, "cam", BOT_ARGS, wait_seconds=WAIT_SECONDS, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
