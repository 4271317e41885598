#!/usr/bin/env python3
"""Redundant audio (RFC 2198, `audio/red`) from Chromium through the SFU (docs/network.md, "RED"):

- alice (Chromium, web SDK) publishes a 440 Hz oscillator; her offer lists Opus then RED
  (`a=fmtp:63 111/111`) and the server's answer lists RED first, so Chromium sends RED;
- bob (a second Chromium window) subscribes: his subscribe answer keeps RED and he receives her
  audio (Chromium's `inbound-rtp` names the codec after the primary block, `audio/opus`, and does
  not say whether packets came as RED);
- swiftbot (`srtc join`, the Swift SDK, RED on by default) receives alice's audio as RED (its
  statistics line counts the packets that came with payload type 63: "N in RED"), plays the
  primary blocks and hears ~440 Hz.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_e2ee import TONE_JS  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

CHANNEL = "redroom"
WAIT = 30

# The subscribe connection's inbound audio: packets, the codec (mimeType, payload type) and level.
INBOUND_AUDIO_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  const out = {packetsReceived: 0, mimeType: null, payloadType: null, audioLevel: 0, totalSamplesReceived: 0, concealedSamples: 0};
  const codecs = new Map();
  subscribe?.forEach((r) => { if (r.type === 'codec') codecs.set(r.id, r); });
  subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'audio') {
      out.packetsReceived = r.packetsReceived || 0;
      out.audioLevel = r.audioLevel || 0;
      out.totalSamplesReceived = r.totalSamplesReceived || 0;
      out.concealedSamples = r.concealedSamples || 0;
      const codec = codecs.get(r.codecId);
      out.mimeType = codec?.mimeType ?? null;
      out.payloadType = codec?.payloadType ?? null;
    }
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""

# The publish connection's outbound audio codec.
OUTBOUND_AUDIO_JS = """
const done = arguments[0];
window.ch.getStats().then(({publish}) => {
  const codecs = new Map();
  publish?.forEach((r) => { if (r.type === 'codec') codecs.set(r.id, r); });
  let out = null;
  publish?.forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'audio') out = {packetsSent: r.packetsSent || 0, mimeType: codecs.get(r.codecId)?.mimeType ?? null};
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


def audio_section(sdp):
    """The audio m-section of `sdp`, as text."""
    sections = re.split(r"\r?\n(?=m=)", sdp)
    return next(s for s in sections if s.startswith("m=audio"))


def publish_tone(alice):
    """Publishes a 440 Hz oscillator from `alice`'s window as `mic`; returns its track id."""
    alice.run(TONE_JS)
    published = alice.call("""
      const tracks = await ch.publishLocalTracks([{track: window.toneTrack, desc: 'mic'}]);
      return tracks.map((t) => t.id);
    """)
    expect(published["ok"], f"alice published a 440 Hz tone ({published.get('error', 'ok')})")
    return published["value"][0]


def run(server, driver, bot):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS)
    mic = publish_tone(alice)
    sdp = alice.run("const pc = window.ch.peerConnections.publish; return {offer: pc.localDescription.sdp, answer: pc.remoteDescription.sdp};")
    offer, answer = audio_section(sdp["offer"]), audio_section(sdp["answer"])
    red = re.search(r"a=rtpmap:(\d+) red/48000/2", offer)
    opus = re.search(r"a=rtpmap:(\d+) opus/48000/2", offer)
    expect(red and opus, "alice's offer has Opus and RED")
    red_pt, opus_pt = red.group(1), opus.group(1)
    m_line = answer.splitlines()[0]
    expect(m_line.split()[3] == red_pt and f"a=fmtp:{red_pt} {opus_pt}/{opus_pt}" in answer,
           f"the server's answer lists RED first with fmtp {opus_pt}/{opus_pt} ({m_line})")
    ok(f"alice's publish answer: `{m_line}`, a=fmtp:{red_pt} {opus_pt}/{opus_pt}")
    sending = alice.wait_value(lambda: alice.run_async(OUTBOUND_AUDIO_JS), lambda s: s and s.get("packetsSent", 0) > 50,
                               "alice sending audio", timeout=WAIT)
    print(f"    alice outbound audio: {sending}")

    bob = Tab.joined(driver, server, "bob", CHANNEL, "bob", JOIN_JS, new_window=True)
    bob.wait_remote_track("alice", "audio", timeout=WAIT)
    subscribed = bob.call(f"await ch.subscribe('{mic}');")
    expect(subscribed["ok"], f"bob subscribed to alice's mic ({subscribed.get('error', 'ok')})")
    stats = bob.wait_value(lambda: bob.run_async(INBOUND_AUDIO_JS), lambda s: s.get("packetsReceived", 0) > 100,
                           "bob receiving alice's audio", timeout=WAIT)
    print(f"    bob inbound audio: {stats}")
    subscribe_answer = audio_section(bob.run("return window.ch.peerConnections.subscribe.localDescription.sdp;"))
    expect("a=rtpmap:63 red/48000/2" in subscribe_answer and "a=fmtp:63 111/111" in subscribe_answer,
           "bob's subscribe answer keeps RED (63, fmtp 111/111)")
    ok(f"bob receives alice's audio ({stats['packetsReceived']} packets, {stats['mimeType']} as Chromium names the primary)")

    heard = bot.wait_tone("alice", "mic", 440, "swiftbot hearing alice's 440 Hz", timeout=WAIT)

    def red_packets():
        found = re.findall(r"alice/mic:.* (\d+) in RED", bot.read_log())
        return int(found[-1]) if found else 0
    red = bob.wait_value(red_packets, lambda n: n >= 100, "swiftbot receiving alice's audio as RED", timeout=WAIT)
    line = [l for l in bot.read_log().splitlines() if l.strip().startswith("alice/mic:")][-1].strip()
    packets = int(re.search(r"(\d+) packets", line).group(1))
    expect(red >= packets - 5, f"every packet swiftbot receives of alice's mic came as RED, payload type 63 ({line})")
    ok(f"swiftbot (Swift SDK, RED negotiated) hears alice's ~{heard} Hz from RED packets: {line}")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("RED audio from Chromium to Chromium and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--desc", "camera", "--size", "160x90", "--duration", "120", "--stats-interval", "1"),
                                wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
