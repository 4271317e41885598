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
2. 10 % in bursts of 10 datagrams in every 100, 15 s.

Each window's flows lose the same positions of their own streams (one seed for every flow). The
pages sample the subscribe connection's `inbound-rtp` every 250 ms (`interop/test_browser_lab_step.py`'s
page). Asserted per phase: the relay lost datagrams, the RED window's audio packets carry a
redundant block, audio concealment (`concealedSamples / totalSamplesReceived`) under 12 % in
both windows, video decoded and no freeze (`freezeCount` / `totalFreezesDuration`) of 1 s or more
in either window: each loss repaired by NACK or a key frame within 1 s (the server negotiates no
RTX: resends go on the stream's own SSRC). Printed against the issue (not met, docs/network.md
"Left to do"): concealment under 3 % with RED and lower than without. Printed: the relay's drops,
each window's concealment, payload bytes per audio packet, video NACKs, PLIs, freezes, frames
and layer switches.
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
PHASES = (("5 % random", {"loss": 0.05}), ("10 % in bursts of 10", {"burst": (10, 100)}))
CONCEALMENT_LIMIT = 0.03  # the issue's, printed
CONCEALMENT_BOUND = 0.12  # asserted: at most about the link's loss
LONGEST_FREEZE = 1.0

# The page of the step-down test with more of inbound-rtp: audio payload bytes and packets lost,
# video NACKs and key-frame requests sent.
PAGE_JS = SETUP_JS.replace(
    "s.audio += r.packetsReceived || 0;",
    "s.audio += r.packetsReceived || 0; s.audioBytes = (s.audioBytes || 0) + (r.bytesReceived || 0); "
    "s.audioLost = (s.audioLost || 0) + (r.packetsLost || 0);").replace(
    "s.freezes = video.freezeCount || 0;",
    "s.freezes = video.freezeCount || 0; s.nacks = video.nackCount || 0; s.plis = video.pliCount || 0; "
    "s.videoLost = video.packetsLost || 0;")
assert PAGE_JS.count("s.audioLost =") == 1 and PAGE_JS.count("s.nacks =") == 1
# Without RED: the subscribe answer loses it (the offer still lists it; the SFU then strips RED).
PLAIN_PAGE_JS = STRIP_RED_JS.replace("createOffer", "createAnswer") + PAGE_JS


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
            "nacks": delta(samples, "nacks"), "plis": delta(samples, "plis"), "gap": recording.worst_gap(start, end),
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
    for name, page in pages.items():
        wait_for(page, f"the {name} window counts received audio samples", lambda r: r.last().get("samples") or None, WAIT_SECONDS)
    flows = relay.stats()["flows"]
    expect(flows >= 2, f"the browser's media passes the relay ({flows} flows)")
    time.sleep(2)

    results = []
    for title, shape in PHASES:
        relay.shape(down=dict(shape, delay=DELAY_MS), up={"delay": DELAY_MS})
        started = time.time()
        time.sleep(PHASE_SECONDS)
        ended = time.time()
        counters = relay.stats()
        relay.shape(down={"delay": DELAY_MS}, up={"delay": DELAY_MS})
        seen = {name: figures(Recording(page), started + SETTLE_SECONDS, ended) for name, page in pages.items()}
        switches = {name: [s for s in Recording(page).switches if started <= s["t"] <= ended] for name, page in pages.items()}
        down = counters["downlink"]
        lost = down["randomlyLost"] + down["burstLost"]
        print(f"network lab (Chromium through the relay), {title} toward the browser, {PHASE_SECONDS} s, "
              f"{DELAY_MS} ms each way: {lost} of {down['offered']} datagrams lost ({100.0 * lost / max(1, down['offered']):.1f} %)")
        for name, f in seen.items():
            print(f"  {name}: audio {f['concealed']} of {f['samples']} samples concealed ({f['concealment'] * 100:.2f} %), "
                  f"{f['packets']} packets of {f['bytes']:.1f} payload bytes; video {f['frames']} frames ({f['width']} wide), "
                  f"{f['nacks']} NACKs, {f['plis']} PLIs, {f['freezes']} freezes ({f['frozen']:.2f} s, longest {f['longest']:.2f} s), "
                  f"worst gap between samples with new frames {f['gap']:.2f} s; switches {switches[name]}")
        results.append((title, lost, seen))
        time.sleep(3)  # clean between the phases

    for title, lost, seen in results:
        red, plain = seen["RED"], seen["no RED"]
        expect(lost > 0, f"{title}: the relay lost datagrams toward the browser ({lost})")
        expect(red["bytes"] > plain["bytes"] * 1.3, f"{title}: the RED window's audio packets carry a redundant block "
               f"({red['bytes']:.1f} payload bytes against {plain['bytes']:.1f})")
        # The issue asks for under 3 % with RED and less than without. Not met by Chromium here
        # (docs/network.md, "Left to do"): in five of six phases of three runs the RED window concealed more than the
        # plain one in both phases (random: 0.21-0.32 % against 0.00-0.05 %; bursts: 2.1-6.0 %
        # against 0.85-4.7 %): with a 40 ms round trip NACK repairs the plain window in time.
        # Printed against the issue; asserted: the playout goes on, concealment bounded by the loss.
        print(f"  {title}: concealed with RED {red['concealment'] * 100:.2f} % (issue: under {CONCEALMENT_LIMIT * 100:.0f} %), "
              f"without {plain['concealment'] * 100:.2f} % (issue: RED lower)")
        for name, f in seen.items():
            expect(f["concealment"] < CONCEALMENT_BOUND, f"{title}: the {name} window conceals {f['concealment'] * 100:.2f} % "
                   f"of samples (under {CONCEALMENT_BOUND * 100:.0f} %)")
        for name, f in seen.items():
            expect(f["frames"] > PHASE_SECONDS * 10, f"{title}: the {name} window decodes video ({f['frames']} frames)")
            expect(f["longest"] < LONGEST_FREEZE, f"{title}: the {name} window's longest freeze {f['longest']:.2f} s "
                   f"(under {LONGEST_FREEZE:.0f} s)")
    ok("Chromium plays on through random and burst loss through the relay, with and without RED; video repaired within 1 s")


def main():
    return run_browser_lab_test("browser lab loss through the relay", run, CHANNEL, "cam", BOT_ARGS, wait_seconds=WAIT_SECONDS, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
