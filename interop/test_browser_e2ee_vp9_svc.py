#!/usr/bin/env python3
"""End-to-end encrypted VP9 SVC (docs/e2ee.md, "Frame format"): each spatial layer frame is
encrypted whole, and the VP9 payload descriptor (RFC 9628 §4.2), which the SFU reads to pick
layers, stays outside the ciphertext.

- alice (Chromium, E2EE, preferring VP9) publishes her numbered 1280×720 canvas as one VP9 stream
  with `scalabilityMode: 'L3T3_KEY'` (camera_big, camera_medium, camera_small);
- bob (same passphrase) subscribes to camera_big and reads frame numbers 1280 wide, then switches
  down to camera_small (`setLayer`): the SFU now forwards only the base layer's encrypted frames,
  and bob goes on decrypting and reading numbers 320 wide, increasing across the switch, every
  frame shown readable;
- swiftbot (`srtc join --e2ee-key --layer camera_big --record DIR`) receives all three layer
  frames of each picture, decrypts each apart and records 1280×720 frames in order;
- eve (another passphrase) is told `decryptionFailed` and decodes nothing;
- the page's WebCrypto code writes docs/e2ee.md's VP9 worked example (a key picture's two layer
  frames, each its own ciphertext under the next counter) byte for byte, as the Swift tests
  (`E2EEH264Tests.vp9SVCWorkedExample`) do;
- swiftbot also publishes its 640×360 test pattern in VP9 (`--video-codec vp9 --desc camera_big`):
  one L2T3_KEY stream, each layer frame its own SFrame ciphertext; carol (same passphrase) reads
  its frame numbers 640 wide on camera_big, then 320 wide on camera_small, in order: Chromium's
  transform decrypts each layer frame the Swift SDK encrypted apart (Swift SVC → Chromium).

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_e2ee import expect_eve_decodes_nothing  # noqa: E402
from test_browser_e2ee import JOIN_JS as E2EE_JOIN_JS  # noqa: E402
from test_browser_e2ee_av1 import read_swift_layers  # noqa: E402
from test_browser_media import Tab  # noqa: E402
from test_browser_vp9_svc import BIG_PATTERN_JS, check_swift_recording, frames, subscribe, wait_size  # noqa: E402

CHANNEL = "e2eevp9svc"
PASSPHRASE = "correct horse battery staple"
WAIT = 45

# test_browser_e2ee's join (E2EE under `passphrase`), preferring VP9 for what it publishes.
JOIN_JS = E2EE_JOIN_JS.replace("e2ee: {keyProvider", "preferredVideoCodec: 'vp9', e2ee: {keyProvider")
assert JOIN_JS != E2EE_JOIN_JS

# docs/e2ee.md's VP9 worked example: a key picture's two layer frames, base key 00…0f, key id 0x123,
# counters 0x4567 and 0x4568 (the transform is handed each layer frame apart, in order).
WORKED_EXAMPLE = ["9901234567517ace01678985a855def7a782fb458e16fad3982e31", "9901234568d72b5a89463af9fd9e28aff78de06ce9e10e0c894e"]
EXAMPLE_JS = """
const done = arguments[0];
import('/sdk/srtc/e2ee-sframe.js').then(async (s) => {
  const layers = [Uint8Array.from([0x82, 0x49, 0x83, 0x42, 0x00, 0x05]), Uint8Array.from([0x86, 0x00, 0x40, 0x01, 0x02])];
  const base = Uint8Array.from([...Array(16).keys()]);
  const sender = new s.SFrameSender(base, 0);
  sender.keyId = 0x123; sender.counter = 0x4567; sender.key = s.frameKey(base, 0x123);
  const receiver = new s.SFrameReceiver(() => base);
  const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  const encrypted = [], decrypted = [];
  for (const layer of layers) {
    const frame = await sender.encrypt(layer, 'vp9');
    encrypted.push(hex(frame));
    decrypted.push(hex((await receiver.decrypt(frame, 'vp9')).frame ?? []));
  }
  done({encrypted, decrypted});
}).catch((e) => done({error: String(e)}));
"""


def run(server, driver, bot, record_dir):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS, PASSPHRASE)
    example = alice.run_async(EXAMPLE_JS)
    expect(example.get("encrypted") == WORKED_EXAMPLE, f"WebCrypto writes the VP9 worked example as the Swift SDK does ({example})")
    expect(example.get("decrypted") == ["824983420005", "8600400102"], f"and reads each layer frame back ({example})")
    alice.run(BIG_PATTERN_JS)
    published = alice.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', scalabilityMode: 'L3T3_KEY'}]);
      return {id: track.id, codec: track.info?.codec ?? null, layers: track.info?.layers?.map((l) => l.desc) ?? [], e2ee: track.info?.e2ee ?? null};
    """)
    expect(published["ok"], f"alice published her numbered camera ({published.get('error', 'ok')})")
    camera = published["value"]
    expect((camera["codec"] or "").lower() == "vp9" and camera["layers"] == ["camera_big", "camera_medium", "camera_small"] and camera["e2ee"],
           f"the camera is published encrypted as VP9 with three spatial layers ({camera})")

    bob = Tab.joined(driver, server, "bob", CHANNEL, "bob", JOIN_JS, PASSPHRASE, new_window=True)
    bob.wait_remote_track("alice", "video", timeout=WAIT)
    subscribe(bob, camera["id"], "camera_big", "camera_big")
    big_stats, big_read = wait_size(bob, 1280, "camera_big")
    expect(big_read == sorted(big_read) and len(set(big_read)) >= 15, f"camera_big: frame numbers in order ({big_read[:5]}…{big_read[-5:]})")
    ok(f"bob decrypts and decodes 1280×{big_stats['height']} VP9, numbers {big_read[0]}…{big_read[-1]}")

    # Down to the base layer: the SFU drops the upper layers' encrypted frames by their descriptors.
    start = len(frames(bob))
    switched = bob.call(f"await ch.setLayer('{camera['id']}', 'camera_small');")
    expect(switched["ok"], f"bob switched to camera_small ({switched.get('error', 'ok')})")
    bob.wait_value(lambda: [f for f in frames(bob)[start:] if f["w"] == 320 and f["n"] is not None],
                   lambda f: len(f) >= 30, "30 frames at 320 after the switch down", timeout=WAIT)
    shown = frames(bob)[start:]
    numbers = [f["n"] for f in shown if f["n"] is not None]
    unreadable = [f for f in shown if f["n"] is None]
    expect(numbers == sorted(numbers) and numbers[0] >= big_read[-1], f"frame numbers keep increasing across the switch ({numbers[:3]}…{numbers[-3:]})")
    expect(not unreadable, f"every frame shown across the switch is readable ({len(unreadable)} of {len(shown)} were not)")
    small = [f["n"] for f in shown if f["w"] == 320 and f["n"] is not None]
    ok(f"after the switch bob decrypts and decodes 320-wide VP9: {len(small)} frames, numbers {small[0]}…{small[-1]}")
    states = [e["args"] for e in bob.events() if e["name"] == "e2eeStateChanged"]
    expect(["alice", "ok"] in states and not any(s[1] != "ok" for s in states if s[0] == "alice"),
           f"bob is told ok for alice and nothing else ({states})")

    # The Swift participant gets every layer frame of each picture and decrypts each apart.
    check_swift_recording(record_dir)
    expect("decryptionFailed" not in bot.read_log(), "swiftbot reports no decryption failure")

    expect_eve_decodes_nothing(driver, server, CHANNEL, JOIN_JS)

    # The Swift SDK's own encrypted VP9 SVC camera, read by Chromium at both layers.
    read_swift_layers(driver, server, CHANNEL, JOIN_JS, "vp9")


def main():
    reexec_in_loopback_namespace(__file__)
    record_dir = tempfile.mkdtemp(prefix="srtc-e2ee-vp9-svc-")
    try:
        return run_browser_bot_test("End-to-end encrypted VP9 SVC between Chromium and the Swift SDK",
                                    lambda server, driver, bot: run(server, driver, bot, record_dir), CHANNEL, "swiftbot",
                                    ("--e2ee-key", PASSPHRASE, "--video-codec", "vp9", "--desc", "camera_big", "--size", "640x360",
                                     "--audio", "none", "--layer", "camera_big",
                                     "--record", record_dir, "--duration", "150", "--stats-interval", "1"), wait_seconds=WAIT)
    finally:
        shutil.rmtree(record_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
