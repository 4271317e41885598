#!/usr/bin/env python3
"""End-to-end encrypted AV1 (docs/e2ee.md, "Frame format") between Chromium and the Swift SDK
through the SFU, byte for byte the same layout: every OBU header and size in the clear (Chromium's
AV1 packetizer parses the frame into OBUs after the encoded transform), the OBU payloads an SFrame
ciphertext whose header and tag ride in the first and last OBU.

- the page's WebCrypto code writes docs/e2ee.md's AV1 worked example byte for byte, as the Swift
  tests (`E2EEAV1Tests.av1WorkedExample`) do;
- alice (Chromium, preferring AV1, the worker transform) publishes a canvas camera painting frame
  numbers;
- swiftbot (`srtc join --e2ee-key --video-codec av1`) publishes its test pattern in AV1;
- bob (a second window, same passphrase) decodes both as video/AV1 and reads their frame numbers in
  order from the pixels (Chromium → Chromium, Swift → Chromium);
- swiftbot decodes alice's camera (Chromium → Swift);
- eve (another passphrase) is told `decryptionFailed` for alice and her decoder gets no frame from
  the packets she receives.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_e2ee import JOIN_JS as E2EE_JOIN_JS  # noqa: E402
from test_browser_e2ee_h264 import PASSPHRASE, WAIT, exchange_encrypted_cameras  # noqa: E402
from test_browser_media import Tab  # noqa: E402

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


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("End-to-end encrypted AV1 between Chromium and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--e2ee-key", PASSPHRASE, "--video-codec", "av1", "--desc", "camera", "--size", "320x180",
                                 "--audio", "none", "--duration", "150", "--stats-interval", "1"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
