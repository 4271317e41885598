#!/usr/bin/env python3
"""End-to-end encrypted AV1 (docs/e2ee.md, "Frame format") between Chromium and the Swift SDK
through the SFU, byte for byte the same layout: every OBU header and size in the clear (Chromium's
AV1 packetizer parses the frame into OBUs after the encoded transform), the OBU payloads an SFrame
ciphertext whose header and tag ride in the first and last OBU.

- the page's WebCrypto code writes docs/e2ee.md's AV1 worked example byte for byte, as the Swift
  tests (`E2EEAV1Tests.av1WorkedExample`) do;
- alice (Chromium, preferring AV1, the worker transform) publishes a canvas camera painting frame
  numbers;
- swiftbot (`srtc join --e2ee-key --video-codec av1 --desc camera_big`) publishes its 640×360 test
  pattern as one AV1 stream of two spatial layers (L2T3_KEY), each layer frame its own SFrame
  ciphertext (docs/e2ee.md, "AV1 with spatial layers");
- bob (a second window, same passphrase) decodes both as video/AV1 and reads their frame numbers in
  order from the pixels (Chromium → Chromium, Swift → Chromium);
- swiftbot decodes alice's camera (Chromium → Swift);
- eve (another passphrase) is told `decryptionFailed` for alice and her decoder gets no frame from
  the packets she receives;
- carol (same passphrase) subscribes to swiftbot's camera at camera_big and reads its frame numbers
  640 wide, then switches to camera_small (the SFU forwards the base layer's ciphertexts alone, by
  the clear Dependency Descriptors) and reads them 320 wide, going on in order: Chromium's
  transform decrypted each layer frame apart;
- dave (Chromium, same passphrase) publishes his canvas with `scalabilityMode: 'L2T3_KEY'`:
  swiftbot, at the best layer, finds each unit's two layer frames by their clear OBU extensions,
  decrypts them apart and decodes 640×360 frames (Chromium SVC → Swift), with no decryption failure.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_e2ee import JOIN_JS as E2EE_JOIN_JS  # noqa: E402
from test_browser_e2ee_h264 import PASSPHRASE, WAIT, exchange_encrypted_cameras  # noqa: E402
from test_browser_h264 import PATTERN_JS  # noqa: E402
from test_browser_media import Tab  # noqa: E402
from test_browser_vp9_svc import frames, subscribe, wait_size  # noqa: E402

CHANNEL = "e2eeav1"

# test_browser_e2ee's join (E2EE under `passphrase`), preferring AV1 for what it publishes.
JOIN_JS = E2EE_JOIN_JS.replace("e2ee: {keyProvider", "preferredVideoCodec: 'av1', e2ee: {keyProvider")
assert JOIN_JS != E2EE_JOIN_JS

# docs/e2ee.md's AV1 worked example: a temporal delimiter, a sequence header and a frame OBU with an
# extension byte, base key 00…0f, key id 0x123, counter 0x4567.
WORKED_EXAMPLE = "0a089901234567d3324f36081453769eccae98ec6094b58088b51b83b279c3011b"
EXAMPLE_JS = """
const done = arguments[0];
import('/sdk/srtc/e2ee-sframe.js').then(async (s) => {
  const unit = Uint8Array.from([0x12, 0x00, 0x0a, 0x03, 0x00, 0x01, 0x02, 0x36, 0x08, 0x04, 0x10, 0x11, 0x12, 0x13]);
  const base = Uint8Array.from([...Array(16).keys()]);
  const sender = new s.SFrameSender(base, 0);
  sender.keyId = 0x123; sender.counter = 0x4567; sender.key = s.frameKey(base, 0x123);
  const encrypted = await sender.encrypt(unit, 'av1');
  const back = await new s.SFrameReceiver(() => base).decrypt(encrypted, 'av1');
  const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  done({encrypted: hex(encrypted), decrypted: hex(back.frame ?? [])});
}).catch((e) => done({error: String(e)}));
"""

def run(server, driver, bot):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS, PASSPHRASE)
    example = alice.run_async(EXAMPLE_JS)
    expect(example.get("encrypted") == WORKED_EXAMPLE, f"WebCrypto writes the AV1 worked example as the Swift SDK does ({example})")
    expect(example.get("decrypted") == "0a0300010236080410111213", f"and reads it back without the temporal delimiter ({example})")
    exchange_encrypted_cameras(driver, server, bot, alice, CHANNEL, JOIN_JS, "av1")
    read_swift_layers(driver, server)
    swift_decodes_browser_svc(driver, server, bot)


def read_swift_layers(driver, server, channel=CHANNEL, join_js=JOIN_JS, codec="av1"):
    """carol reads swiftbot's encrypted L2T3_KEY camera (AV1 or VP9) at camera_big, then at camera_small."""
    carol = Tab.joined(driver, server, "carol", channel, "carol", join_js, PASSPHRASE, new_window=True)
    swift = carol.wait_remote_track("swiftbot", "video", timeout=WAIT)
    expect((swift["codec"] or "").lower() == codec and swift["layers"] == ["camera_big", "camera_small"],
           f"swiftbot's encrypted camera is one {codec} stream of two layers ({swift})")
    subscribe(carol, swift["id"], "camera_big", "swiftbot's camera_big")
    big_stats, big = wait_size(carol, 640, "swiftbot's encrypted camera_big", mime=f"video/{codec}")
    expect(big == sorted(big) and len(set(big)) >= 15, f"camera_big: frame numbers in order ({big[:5]}…{big[-5:]})")
    ok(f"carol decrypts and decodes swiftbot's camera_big 640×{big_stats['height']}: numbers {big[0]}…{big[-1]}")
    start = len(frames(carol))
    switched = carol.call(f"await ch.setLayer('{swift['id']}', 'camera_small');")
    expect(switched["ok"], f"carol switched to camera_small ({switched.get('error', 'ok')})")
    small = carol.wait_value(lambda: [f["n"] for f in frames(carol)[start:] if f["w"] == 320 and f["n"] is not None],
                             lambda n: len(n) >= 20, "20 frame numbers read 320 wide after the switch", timeout=WAIT)
    expect(small == sorted(small) and small[0] >= big[-1], f"camera_small numbers continue in order ({small[:5]}…{small[-5:]})")
    ok(f"carol decrypts and decodes swiftbot's camera_small 320 wide: {len(small)} numbers {small[0]}…{small[-1]}")
    states = [e["args"] for e in carol.events() if e["name"] == "e2eeStateChanged" and e["args"][0] == "swiftbot"]
    expect(states == [["swiftbot", "ok"]], f"carol is told ok for swiftbot, and nothing else ({states})")


def swift_decodes_browser_svc(driver, server, bot):
    """dave publishes encrypted AV1 L2T3_KEY; swiftbot decrypts each layer frame and decodes 640×360."""
    dave = Tab.joined(driver, server, "dave", CHANNEL, "dave", JOIN_JS, PASSPHRASE, new_window=True)
    dave.run(PATTERN_JS)
    published = dave.call("""
      const [track] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera_big', scalabilityMode: 'L2T3_KEY'}]);
      return {codec: track.info?.codec ?? null, layers: track.info?.layers?.map((l) => l.desc) ?? [], e2ee: track.info?.e2ee ?? null};
    """)
    expect(published["ok"], f"dave published his numbered camera ({published.get('error', 'ok')})")
    camera = published["value"]
    expect((camera["codec"] or "").lower() == "av1" and camera["layers"] == ["camera_big", "camera_small"] and camera["e2ee"],
           f"dave's camera is published encrypted as AV1 with two spatial layers ({camera})")
    frames_seen, _ = bot.wait_stats("dave", "camera_big", lambda s: s[0] > 30 and swift_size(bot, "dave", "camera_big") == (640, 360),
                                    "the Swift participant decoding dave's AV1 SVC camera 640×360", WAIT)
    ok(f"swiftbot decrypts each layer frame of dave's L2T3_KEY camera and decodes 640×360 (Chromium SVC → Swift): {frames_seen} frames")
    expect("decryptionFailed" not in bot.read_log(), "swiftbot reports no decryption failure")


def swift_size(bot, uid, desc):
    """The decoded size in the Swift participant's last statistics line for `uid/desc`."""
    import re
    size = None
    for line in bot.read_log().splitlines():
        match = re.search(r"fps (\d+)x(\d+)", line) if line.strip().startswith(f"{uid}/{desc}:") else None
        if match:
            size = (int(match.group(1)), int(match.group(2)))
    return size


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("End-to-end encrypted AV1 between Chromium and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--e2ee-key", PASSPHRASE, "--video-codec", "av1", "--desc", "camera_big", "--size", "640x360",
                                 "--audio", "none", "--duration", "150", "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
