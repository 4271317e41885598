#!/usr/bin/env python3
"""End-to-end encryption (docs/e2ee.md) between Chromium and the Swift SDK through the SFU: one
shared passphrase, SFrame frames in both directions, byte for byte the same format.

- alice (Chromium, `e2ee: {keyProvider: E2EEKeyProvider.sharedKey(...)}`, RTCRtpScriptTransform in
  a worker) publishes a canvas camera painting frame numbers and a 440 Hz oscillator;
- swiftbot (`srtc join --e2ee-key`) publishes its test pattern and tone;
- bob (a second browser window, same passphrase) reads alice's and swiftbot's frame numbers in
  order from the decoded pixels and hears each one's 440 Hz (Chromium → Chromium, Swift →
  Chromium). Bob's page has no `RTCRtpScriptTransform` (removed before the SDK loads), so his
  SDK decrypts on the page with `createEncodedStreams`, the path of browsers without it: the two
  paths make and read the same frames;
- swiftbot reads alice's frame numbers from the pictures it decodes, increasing, and hears her
  440 Hz (Chromium → Swift);
- eve (a third window, another passphrase) is told `decryptionFailed` for alice and her decoder
  gets no frame from the same packets (framesDecoded stays 0).

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import SUMMARIZE_JS, expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_h264 import PATTERN_JS, PATTERN_READER_JS  # noqa: E402
from test_browser_media import Tab  # noqa: E402

CHANNEL = "e2eeroom"
PASSPHRASE = "correct horse battery staple"
WAIT = 30

# Joins with end-to-end encryption under `passphrase`.
JOIN_JS = SUMMARIZE_JS + """
const [token, passphrase, done] = arguments;
window.events = [];
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  const ch = new srtc.SRTCChannel({logLevel: 'debug', logger: (level, m) => console.log('[srtc ' + level + '] ' + m),
                                   e2ee: {keyProvider: srtc.E2EEKeyProvider.sharedKey(passphrase)}});
  window.ch = ch;
  ch.onAny((name, ...args) => window.events.push({name, args: args.map(window.summarize)}));
  await ch.join(location.origin, token);
  done({ok: true, uid: ch.uid, scriptTransform: typeof RTCRtpScriptTransform !== 'undefined'});
}).catch((e) => done({ok: false, error: String(e), code: e.code}));
"""

# Bob's window: removed before any script of a page runs (the server's page loads the SDK
# itself), so the SDK finds no RTCRtpScriptTransform, as in a browser that has only
# createEncodedStreams (it then asks for encodedInsertableStreams connections).
NO_SCRIPT_TRANSFORM_JS = "delete window.RTCRtpScriptTransform;"


def joined_without_script_transform(driver, server, name, uid):
    """A new window whose pages have no RTCRtpScriptTransform, joined with the passphrase."""
    driver.switch_to.new_window("window")
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NO_SCRIPT_TRANSFORM_JS})
    driver.get(server.base + "/")
    tab = Tab(driver, driver.current_window_handle, name)
    joined = tab.run_async(JOIN_JS, server.channel_token(CHANNEL, uid), PASSPHRASE)
    expect(joined["ok"] and joined["scriptTransform"] is False,
           f"{name} joined {CHANNEL} as {uid} without RTCRtpScriptTransform ({joined})")
    return tab

# Plays a remote audio track in an <audio> element (Chromium plays a received track out only
# while something plays it) with an analyser of its own: window.analysers[trackId].
PLAY_AUDIO_JS = """
const [trackId] = arguments;
const stream = new MediaStream([window.ch.remoteTrack(trackId).mediaStreamTrack]);
const player = new Audio();
player.srcObject = stream;
player.play();
window.audioContext = window.audioContext || new AudioContext();
const analyser = window.audioContext.createAnalyser();
analyser.fftSize = 8192;
window.audioContext.createMediaStreamSource(stream).connect(analyser);
window.analysers = window.analysers || {};
window.analysers[trackId] = {analyser, player};
"""

# The strongest frequency (Hz) of what a track's analyser hears, and its level (dB); null before any sound.
HEARD_JS = """
const [trackId] = arguments;
const {analyser} = window.analysers[trackId];
const bins = new Float32Array(analyser.frequencyBinCount);
analyser.getFloatFrequencyData(bins);
let best = 1;
for (let i = 1; i < bins.length; i++) if (bins[i] > bins[best]) best = i;
return bins[best] > -80 ? {hz: best * window.audioContext.sampleRate / analyser.fftSize, db: bins[best]} : null;
"""

# A 440 Hz oscillator as a microphone track.
TONE_JS = """
const context = new AudioContext();
const oscillator = context.createOscillator();
oscillator.frequency.value = 440;
const gain = context.createGain();
gain.gain.value = 0.4;
const destination = context.createMediaStreamDestination();
oscillator.connect(gain).connect(destination);
oscillator.start();
window.toneTrack = destination.stream.getAudioTracks()[0];
"""

# Plays a remote video and reads the test pattern's frame numbers into window.read[trackId].
READER_JS = PATTERN_READER_JS + """
const [trackId, done] = arguments;
window.read = window.read || {};
window.read[trackId] = [];
window.playRemoteVideo(trackId, (n) => { if (n !== null) window.read[trackId].push(n); })
  .then(() => done({ok: true}), (e) => done({ok: false, error: String(e)}));
"""

# The subscribe connection's inbound video: packets received and frames decoded, summed.
INBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  const out = {packetsReceived: 0, framesDecoded: 0};
  subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video') { out.packetsReceived += r.packetsReceived || 0; out.framesDecoded += r.framesDecoded || 0; }
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


def read_numbers(tab, track_id, what):
    """`tab` subscribes to `track_id`, plays it and must read 20 frame numbers in order from its pixels."""
    subscribed = tab.call(f"await ch.subscribe('{track_id}');")
    expect(subscribed["ok"], f"{tab.name} subscribed to {what} ({subscribed.get('error', 'ok')})")
    reader = tab.run_async(READER_JS, track_id)
    expect(reader["ok"], f"{tab.name} plays {what} ({reader.get('error', 'ok')})")
    numbers = tab.wait_value(lambda: tab.run(f"return window.read['{track_id}'];") or [], lambda n: len(n) >= 20,
                             f"20 frame numbers read from {what}", timeout=WAIT)
    expect(numbers == sorted(numbers) and len(set(numbers)) >= 15, f"{what}: frame numbers in order ({numbers[:5]}…{numbers[-5:]})")
    ok(f"{tab.name} decrypts and decodes {what}: {len(numbers)} frames, numbers {numbers[0]}…{numbers[-1]}")


def hear_tone(tab, track_id, what):
    """`tab` subscribes to the audio track `track_id`, plays it, and must hear 440 Hz in it."""
    subscribed = tab.call(f"await ch.subscribe('{track_id}');")
    expect(subscribed["ok"], f"{tab.name} subscribed to {what} ({subscribed.get('error', 'ok')})")
    tab.run(PLAY_AUDIO_JS, track_id)
    heard = tab.wait_value(lambda: tab.run(HEARD_JS, track_id), lambda h: h is not None and abs(h["hz"] - 440) < 15,
                           f"440 Hz heard in {what}", timeout=WAIT)
    ok(f"{tab.name} decrypts {what} and hears ~{heard['hz']:.0f} Hz ({heard['db']:.0f} dB)")


def bot_pattern_numbers(bot, uid, desc):
    """The frame numbers the Swift participant read from `uid/desc` (`pattern #N` in its statistics lines)."""
    import re
    return [int(m.group(1)) for line in bot.read_log().splitlines() if line.strip().startswith(f"{uid}/{desc}:")
            for m in [re.search(r"pattern #(\d+)", line)] if m]


def expect_eve_decodes_nothing(driver, server, channel, join_js):
    """eve joins `channel` with another passphrase: she is told `decryptionFailed` for alice's camera
    and her decoder gets no frame from the packets she receives."""
    eve = Tab.joined(driver, server, "eve", channel, "eve", join_js, "another passphrase", new_window=True)
    camera = eve.wait_remote_track("alice", "video", timeout=WAIT)["id"]
    subscribed = eve.call(f"await ch.subscribe('{camera}');")
    expect(subscribed["ok"], f"eve subscribed to alice's camera ({subscribed.get('error', 'ok')})")
    eve.wait_event("e2eeStateChanged", lambda args: args == ["alice", "decryptionFailed"], timeout=WAIT)
    stats = eve.wait_value(lambda: eve.run_async(INBOUND_JS), lambda s: s.get("packetsReceived", 0) > 200,
                           "eve receiving alice's packets", timeout=WAIT)
    expect(stats.get("framesDecoded", 0) == 0, f"eve, with another passphrase, decodes nothing from {stats['packetsReceived']} packets ({stats})")
    ok(f"eve is told decryptionFailed and decodes nothing from {stats['packetsReceived']} packets")


def run(server, driver, bot):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS, PASSPHRASE)
    expect(alice.run("return typeof RTCRtpScriptTransform !== 'undefined';"), "Chromium has RTCRtpScriptTransform (the worker path)")
    alice.run(PATTERN_JS)
    alice.run(TONE_JS)
    published = alice.call("""
      const tracks = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera'}, {track: window.toneTrack, desc: 'mic'}]);
      return tracks.map((t) => t.id);
    """)
    expect(published["ok"], f"alice published her numbered camera and a 440 Hz tone ({published.get('error', 'ok')})")

    bob = joined_without_script_transform(driver, server, "bob", "bob")
    read_numbers(bob, bob.wait_remote_track("alice", "video", timeout=WAIT)["id"], "alice's camera (Chromium → Chromium)")
    insertable = bob.run("return window.ch.peerConnections.subscribe.getConfiguration().encodedInsertableStreams;")
    expect(insertable is True, f"bob's subscribe connection was made with encodedInsertableStreams ({insertable})")
    read_numbers(bob, bob.wait_remote_track("swiftbot", "video", timeout=WAIT)["id"], "swiftbot's camera (Swift → Chromium)")
    hear_tone(bob, bob.wait_remote_track("alice", "audio", timeout=WAIT)["id"], "alice's mic (Chromium → Chromium)")
    hear_tone(bob, bob.wait_remote_track("swiftbot", "audio", timeout=WAIT)["id"], "swiftbot's mic (Swift → Chromium)")
    states = [e["args"] for e in bob.events() if e["name"] == "e2eeStateChanged"]
    expect(["alice", "ok"] in states and ["swiftbot", "ok"] in states and not any(s[1] != "ok" for s in states),
           f"bob is told ok for alice and swiftbot, and nothing else ({states})")

    frames, _ = bot.wait_stats("alice", "camera", lambda s: s[0] > 20, "the Swift participant decrypting alice's camera", WAIT)
    numbers = bob.wait_value(lambda: bot_pattern_numbers(bot, "alice", "camera"), lambda n: len(n) >= 5,
                             "5 of alice's frame numbers read by swiftbot", timeout=WAIT)
    expect(numbers == sorted(numbers) and len(set(numbers)) >= 4, f"swiftbot reads alice's frame numbers increasing ({numbers})")
    ok(f"swiftbot decrypts and decodes alice's camera (Chromium → Swift): {frames} frames, pattern numbers {numbers[0]}…{numbers[-1]}")

    heard = bot.wait_tone("alice", "mic", 440, "swiftbot hearing alice's 440 Hz", timeout=WAIT)
    ok(f"swiftbot decrypts alice's audio and hears ~{heard} Hz")
    expect("decryptionFailed" not in bot.read_log(), "swiftbot reports no decryption failure")

    expect_eve_decodes_nothing(driver, server, CHANNEL, JOIN_JS)


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("End-to-end encryption between Chromium and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--e2ee-key", PASSPHRASE, "--desc", "camera", "--size", "320x180", "--duration", "150",
                                 "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
