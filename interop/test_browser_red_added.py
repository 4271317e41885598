#!/usr/bin/env python3
"""RED added by the SFU toward a lossy Chromium subscriber (docs/network.md, "RED added by the SFU"):

- alice (Chromium, web SDK) publishes a 440 Hz oscillator with RED taken out of her offer (her
  page's `createOffer` drops `red/48000/2`), so she sends plain Opus;
- bob (a second Chromium window) subscribes; his subscribe answer keeps RED;
- 20 % of the datagrams the server sends from its media port are dropped (an nftables rule in
  the test's own loopback namespace). Once bob's receiver reports show the loss, the SFU wraps
  each Opus packet in RED with the previous one; Chromium takes RED and plain Opus on the same
  SSRC: bob goes on receiving and decoding, his payload bytes per packet about double (the
  redundant block), and he conceals far fewer samples than the link loses.

Chromium sends an audio receiver report about every 5 s, so the measurement starts 7 s after the
loss. Runs in a loopback-only network namespace (needs `unshare -n` and `nft`).
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, red_added, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402
from test_browser_red import INBOUND_AUDIO_JS, audio_section, publish_tone  # noqa: E402

# bob's inbound audio with its payload bytes (RTP payloads, headers and padding not counted).
INBOUND_JS = INBOUND_AUDIO_JS.replace("out.packetsReceived = r.packetsReceived || 0;",
                                      "out.packetsReceived = r.packetsReceived || 0; out.bytesReceived = r.bytesReceived || 0; "
                                      "out.packetsLost = r.packetsLost || 0; out.nackCount = r.nackCount || 0;")
assert INBOUND_JS != INBOUND_AUDIO_JS

CHANNEL = "redadded"
WAIT = 30
LOSS_PER_MILLE = 200
SETTLE_SECONDS = 7
MEASURE_SECONDS = 10
TABLE = "srtc_red_added"

# alice's offers without RED: the codec's payload type leaves the m= line with its attributes.
STRIP_RED_JS = """
const strip = (sdp) => {
  const red = [...sdp.matchAll(/a=rtpmap:(\\d+) red\\/48000\\/2/g)].map((m) => m[1]);
  let out = sdp;
  for (const pt of red) {
    out = out.replace(new RegExp('^(m=audio \\\\S+ \\\\S+)((?: \\\\d+)*)$', 'm'),
                      (line, head, pts) => head + pts.split(' ').filter((p) => p && p !== pt).map((p) => ' ' + p).join(''));
    out = out.split('\\r\\n').filter((l) => !l.startsWith(`a=rtpmap:${pt} `) && !l.startsWith(`a=fmtp:${pt} `)
                                           && !l.startsWith(`a=rtcp-fb:${pt} `)).join('\\r\\n');
  }
  return out;
};
const original = RTCPeerConnection.prototype.createOffer;
RTCPeerConnection.prototype.createOffer = async function (...args) {
  const offer = await original.apply(this, args);
  return {type: offer.type, sdp: strip(offer.sdp)};
};
"""


# Plays bob's copy of alice's mic in an <audio> element (Chromium plays a received track out, and
# counts its samples, only while something plays it), with an analyser for the tone's frequency.
PLAY_JS = """
const [trackId] = arguments;
const track = window.ch.remoteTrack(trackId).mediaStreamTrack;
const stream = new MediaStream([track]);
window.player = new Audio();
window.player.srcObject = stream;
window.player.play();
const context = new AudioContext();
window.analyser = context.createAnalyser();
window.analyser.fftSize = 8192;
context.createMediaStreamSource(stream).connect(window.analyser);
window.audioContext = context;
"""

# The strongest frequency of what bob plays, Hz.
TONE_JS_BOB = """
const bins = new Float32Array(window.analyser.frequencyBinCount);
window.analyser.getFloatFrequencyData(bins);
let best = 0;
for (let i = 1; i < bins.length; i++) if (bins[i] > bins[best]) best = i;
return best * window.audioContext.sampleRate / window.analyser.fftSize;
"""


def nft(rules):
    subprocess.run(["nft", "-f", "-"], input=rules, text=True, check=True)


def lose(port):
    """Drops a share of the datagrams sent from the server's media port `port` (bob's subscribe
    transport's: each media worker has its own)."""
    nft(f"""table inet {TABLE} {{
  chain out {{
    type filter hook output priority 0;
    udp sport {port} numgen random mod 1000 < {LOSS_PER_MILLE} counter drop
  }}
}}
""")


def dropped():
    listing = subprocess.run(["nft", "list", "table", "inet", TABLE], capture_output=True, text=True).stdout
    found = re.search(r"counter packets (\d+)", listing)
    return int(found.group(1)) if found else 0


def run(server, driver):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS)
    alice.run(STRIP_RED_JS)
    mic = publish_tone(alice)
    answer = audio_section(alice.run("return window.ch.peerConnections.publish.remoteDescription.sdp;"))
    expect("red/48000/2" not in answer, f"alice's publish answer has no RED: she sends plain Opus ({answer.splitlines()[0]})")

    bob = Tab.joined(driver, server, "bob", CHANNEL, "bob", JOIN_JS, new_window=True)
    bob.wait_remote_track("alice", "audio", timeout=WAIT)
    subscribed = bob.call(f"await ch.subscribe('{mic}');")
    expect(subscribed["ok"], f"bob subscribed to alice's mic ({subscribed.get('error', 'ok')})")
    before = bob.wait_value(lambda: bob.run_async(INBOUND_JS), lambda s: s.get("packetsReceived", 0) > 100,
                            "bob receiving alice's audio", timeout=WAIT)
    subscribe_answer = audio_section(bob.run("return window.ch.peerConnections.subscribe.localDescription.sdp;"))
    expect("a=rtpmap:63 red/48000/2" in subscribe_answer, "bob's subscribe answer keeps RED (63)")
    feedback = [line for line in subscribe_answer.splitlines() if line.startswith("a=rtcp-fb:111 ")]
    print(f"    bob's subscribe answer for Opus: {feedback}")
    bob.run(PLAY_JS, mic)
    bob.wait_value(lambda: bob.run_async(INBOUND_JS), lambda s: s.get("totalSamplesReceived", 0) > 48_000,
                   "bob playing alice's audio", timeout=WAIT)
    before = bob.run_async(INBOUND_JS)
    offer = bob.run("return window.ch.peerConnections.subscribe.remoteDescription.sdp;")
    port = int(re.search(r"a=candidate:\S+ \d+ udp \d+ \S+ (\d+)", offer, re.IGNORECASE).group(1))

    lose(port)
    try:
        time.sleep(SETTLE_SECONDS)
        start = bob.run_async(INBOUND_JS)
        red_start = red_added(server)
        time.sleep(MEASURE_SECONDS)
        end = bob.run_async(INBOUND_JS)
        red_end = red_added(server)
        hz = bob.run(TONE_JS_BOB)
        lost = dropped()
    finally:
        subprocess.run(["nft", "delete", "table", "inet", TABLE], capture_output=True)

    def per_packet(a, b=None):
        packets = a["packetsReceived"] - (b["packetsReceived"] if b else 0)
        payload = a["bytesReceived"] - (b["bytesReceived"] if b else 0)
        return packets, payload / max(1, packets)

    plain_packets, plain_size = per_packet(before)
    before_samples = max(1, before["totalSamplesReceived"])
    print(f"    before the loss: {before['concealedSamples']} of {before_samples} samples concealed")
    packets, size = per_packet(end, start)
    samples = end["totalSamplesReceived"] - start["totalSamplesReceived"]
    concealed = end["concealedSamples"] - start["concealedSamples"]
    concealment = concealed / max(1, samples)
    # What Chromium's reports say (packetsLost, resends counted as received) and what it NACKed.
    reported = end["packetsLost"] - start["packetsLost"]
    nacked = end["nackCount"] - start["nackCount"]
    print(f"    before the loss: {plain_packets} packets, {plain_size:.1f} payload bytes each")
    print(f"    {LOSS_PER_MILLE / 10:.0f} % loss from the server ({lost} datagrams dropped), {MEASURE_SECONDS} s measured after "
          f"{SETTLE_SECONDS} s: {packets} packets, {size:.1f} payload bytes each; {concealed} of {samples} samples "
          f"concealed ({concealment * 100:.2f} %); Chromium counts {reported} packets lost and sent {nacked} NACKs")
    # What the SFU sent bob (only bob's consumer adds RED here), over the window (/metrics lags up to 1 s).
    red = {key: red_end.get(key, 0) - red_start.get(key, 0) for key in red_end}
    wrapped = sum(red.get(key, 0) for key in ("with", "not_previous", "not_cached", "unfit"))
    print(f"    the SFU: {wrapped} packets sent in RED, {red.get('with', 0)} with the redundant block; without: "
          f"{red.get('not_previous', 0)} after a packet that was not the previous number, {red.get('not_cached', 0)} not cached, "
          f"{red.get('unfit', 0)} unfit; RED turned on {red.get('on', 0)} and off {red.get('off', 0)} times "
          f"(in all: {red_end})")
    expect(lost > 0, f"the rule dropped datagrams from the server's port {port}")
    expect(packets > MEASURE_SECONDS * 25 and samples > 0, f"bob goes on receiving and playing under loss ({packets} packets)")
    # The redundant block (the previous packet) and 5 bytes of headers: about twice the payload on
    # the packets that carry one. The average over everything Chromium received (NACK resends go
    # plain, and not every live packet carries a block: 128-137 bytes here on an idle machine,
    # 121 twice under make test's load, against 150 once; docs/network.md) stays well above the
    # plain size whenever the SFU adds RED: 1.3x.
    expect(size > plain_size * 1.3, f"bob's packets carry a redundant block: {size:.1f} bytes each against {plain_size:.1f}")
    # The direction, with a margin: under half the link's loss concealed.
    expect(concealment < LOSS_PER_MILLE / 1000 / 2, f"bob conceals {concealment * 100:.2f} % of samples at {LOSS_PER_MILLE / 10:.0f} % loss")
    expect(abs(hz - 440) < 10, f"bob hears ~440 Hz ({hz:.1f})")
    ok(f"Chromium takes RED added by the SFU: {size:.1f} payload bytes a packet (plain: {plain_size:.1f}), "
       f"{concealment * 100:.2f} % of samples concealed at {LOSS_PER_MILLE / 10:.0f} % loss, ~{hz:.0f} Hz")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("RED added by the SFU toward a lossy Chromium subscriber", run, wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
