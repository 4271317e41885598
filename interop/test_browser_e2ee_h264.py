#!/usr/bin/env python3
"""End-to-end encrypted H.264 (docs/e2ee.md, "Frame format") between Chromium and the Swift SDK
through the SFU, byte for byte the same layout: SPS, PPS and the slice header in the clear, the rest
an SFrame ciphertext escaped into the slice's NAL unit.

- the page's WebCrypto code writes docs/e2ee.md's H.264 worked example byte for byte, as the Swift
  tests (`E2EEH264Tests.h264WorkedExample`) do;
- alice (Chromium, preferring H.264, the worker transform) publishes a canvas camera painting frame
  numbers;
- swiftbot (`srtc join --e2ee-key --video-codec h264`) publishes its test pattern in H.264;
- bob (a second window, same passphrase) decodes both as video/H264 and reads their frame numbers in
  order from the pixels (Chromium → Chromium, Swift → Chromium);
- swiftbot decodes alice's camera (Chromium → Swift);
- eve (another passphrase) is told `decryptionFailed` for alice and her decoder gets no frame from
  the packets she receives.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_e2ee import expect_eve_decodes_nothing, read_numbers  # noqa: E402
from test_browser_e2ee import JOIN_JS as E2EE_JOIN_JS  # noqa: E402
from test_browser_h264 import PATTERN_JS  # noqa: E402
from test_browser_media import Tab  # noqa: E402

CHANNEL = "e2eeh264"
PASSPHRASE = "correct horse battery staple"
WAIT = 30

# test_browser_e2ee's join (E2EE under `passphrase`), preferring H.264 for what it publishes.
JOIN_JS = E2EE_JOIN_JS.replace("e2ee: {keyProvider", "preferredVideoCodec: 'h264', e2ee: {keyProvider")
assert JOIN_JS != E2EE_JOIN_JS

# docs/e2ee.md's H.264 worked example: SPS, PPS (3-byte start code) and an IDR slice, base key
# 00…0f, key id 0x123, counter 0x4567.
WORKED_EXAMPLE = ("000000016742e01faa0000000168ce3c80000000016588849901234567d3334c41678cdf0b30189f09fab334e596c574ccf9dab49648")
EXAMPLE_JS = """
const done = arguments[0];
import('/sdk/srtc/e2ee-sframe.js').then(async (s) => {
  const au = Uint8Array.from([0, 0, 0, 1, 0x67, 0x42, 0xe0, 0x1f, 0xaa, 0, 0, 1, 0x68, 0xce, 0x3c, 0x80,
                              0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03, 0xff]);
  const layout = s.h264Clear(au);
  const key = await s.frameKey(Uint8Array.from([...Array(16).keys()]), 0x123);
  const sealed = await s.seal(key, 0x123, 0x4567, new Uint8Array(0), au.subarray(layout.rest), layout.clear);
  done([...s.concat(layout.clear, s.escapeH264(sealed, layout.zeros))].map((b) => b.toString(16).padStart(2, '0')).join(''));
}).catch((e) => done(String(e)));
"""

# The same access unit with a second slice after it (3-byte start code): the SDKs write one slice NAL
# unit, the second slice inside the ciphertext (`E2EEH264Tests.h264MultiSliceWorkedExample`), and the
# decrypted unit has both slices again.
MULTI_SLICE_EXAMPLE = "000000016742e01faa0000000168ce3c80000000016588849901234567d3334c41678cdf0b302ea969b9863f24e27c72ae8d37e10173b72632e0321a797c265896"
MULTI_SLICE_PLAIN = "000000016742e01faa0000000168ce3c80000000016588840000010200000003ff00000165052110000000aa"
MULTI_SLICE_JS = """
const done = arguments[0];
import('/sdk/srtc/e2ee-sframe.js').then(async (s) => {
  const unit = Uint8Array.from([0, 0, 0, 1, 0x67, 0x42, 0xe0, 0x1f, 0xaa, 0, 0, 1, 0x68, 0xce, 0x3c, 0x80,
                                0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03, 0xff,
                                0, 0, 1, 0x65, 0x05, 0x21, 0x10, 0x00, 0x00, 0x00, 0xaa]);
  const base = Uint8Array.from([...Array(16).keys()]);
  const sender = new s.SFrameSender(base, 0);
  sender.keyId = 0x123; sender.counter = 0x4567; sender.key = s.frameKey(base, 0x123);
  const encrypted = await sender.encrypt(unit, 'h264');
  const back = await new s.SFrameReceiver(() => base).decrypt(encrypted, 'h264');
  const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  done({encrypted: hex(encrypted), decrypted: hex(back.frame ?? [])});
}).catch((e) => done({error: String(e)}));
"""

# The codec of the subscribe connection's inbound video.
CODEC_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  const codecs = [];
  subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video' && (r.framesDecoded || 0) > 0) codecs.push(subscribe.get(r.codecId)?.mimeType ?? null);
  });
  done(codecs);
}).catch((e) => done([String(e)]));
"""


def exchange_encrypted_cameras(driver, server, bot, alice, channel, join_js, codec):
    """alice (already joined with `join_js`, preferring `codec`) publishes her numbered camera; bob
    decodes it and swiftbot's as `codec` in order, swiftbot decodes alice's, and eve (another
    passphrase) decodes nothing. Shared by the encrypted H.264 and AV1 tests."""
    name, mime = codec.upper() if codec == "av1" else "H.264", "video/" + codec
    alice.run(PATTERN_JS)
    published = alice.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera'}]);
      return {id: track.id, codec: track.info?.codec ?? null};
    """)
    expect(published["ok"], f"alice published her numbered camera ({published.get('error', 'ok')})")
    expect((published["value"]["codec"] or "").lower() == codec, f"alice's camera is published as {name} ({published['value']})")

    bob = Tab.joined(driver, server, "bob", channel, "bob", join_js, PASSPHRASE, new_window=True)
    camera = bob.wait_remote_track("alice", "video", timeout=WAIT)
    expect((camera["codec"] or "").lower() == codec, f"bob sees alice's camera announced as {name} ({camera})")
    read_numbers(bob, camera["id"], f"alice's encrypted {name} camera (Chromium → Chromium)")
    swift = bob.wait_remote_track("swiftbot", "video", timeout=WAIT)
    expect((swift["codec"] or "").lower() == codec, f"bob sees swiftbot's camera announced as {name} ({swift})")
    read_numbers(bob, swift["id"], f"swiftbot's encrypted {name} camera (Swift → Chromium)")
    codecs = bob.run_async(CODEC_JS)
    expect(codecs and all((c or "").lower() == mime for c in codecs), f"bob decodes {name} ({codecs})")
    states = [e["args"] for e in bob.events() if e["name"] == "e2eeStateChanged"]
    expect(["alice", "ok"] in states and ["swiftbot", "ok"] in states and not any(s[1] != "ok" for s in states),
           f"bob is told ok for alice and swiftbot, and nothing else ({states})")

    frames, _ = bot.wait_stats("alice", "camera", lambda s: s[0] > 20, f"the Swift participant decrypting alice's {name} camera", WAIT)
    ok(f"swiftbot decrypts and decodes alice's {name} camera (Chromium → Swift): {frames} frames")
    expect("decryptionFailed" not in bot.read_log(), "swiftbot reports no decryption failure")

    expect_eve_decodes_nothing(driver, server, channel, join_js)


def run(server, driver, bot):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS, PASSPHRASE)
    example = alice.run_async(EXAMPLE_JS)
    expect(example == WORKED_EXAMPLE, f"WebCrypto writes the H.264 worked example as the Swift SDK does ({example})")
    multi = alice.run_async(MULTI_SLICE_JS)
    expect(multi.get("encrypted") == MULTI_SLICE_EXAMPLE, f"WebCrypto writes the two-slice example as the Swift SDK does ({multi})")
    expect(multi.get("decrypted") == MULTI_SLICE_PLAIN, f"and reads both slices back ({multi})")
    exchange_encrypted_cameras(driver, server, bot, alice, CHANNEL, JOIN_JS, "h264")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("End-to-end encrypted H.264 between Chromium and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--e2ee-key", PASSPHRASE, "--video-codec", "h264", "--desc", "camera", "--size", "320x180",
                                 "--audio", "none", "--duration", "150", "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
