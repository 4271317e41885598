#!/usr/bin/env python3
"""End-to-end encryption with per-participant keys in Chromium (docs/e2ee.md, "Per-participant
keys"): the app gives alice's key to alice, bob and carol (`E2EEKeyProvider.perParticipant()`,
`setKey`); bob and carol read alice's frame numbers from the decoded pixels. Then carol is
"removed": alice and bob get a new key (index 1), carol does not. Bob is told `keyRatcheted` and
goes on reading newer frame numbers; carol is told `missingKey` and her decoder gets no frame from
then on, though the packets still reach her.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import SUMMARIZE_JS, expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from test_browser_e2ee import INBOUND_JS, read_numbers  # noqa: E402
from test_browser_h264 import PATTERN_JS  # noqa: E402
from test_browser_media import Tab  # noqa: E402

CHANNEL = "e2eekeys"
WAIT = 30
FIRST = "00112233445566778899aabbccddeeff"
SECOND = "ffeeddccbbaa99887766554433221100"

# Joins with per-participant keys: `keys` is a list of [uid, hex, index] the app gives.
JOIN_JS = SUMMARIZE_JS + """
const [token, keys, done] = arguments;
window.events = [];
const bytes = (hex) => Uint8Array.from(hex.match(/../g).map((h) => parseInt(h, 16)));
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  window.provider = srtc.E2EEKeyProvider.perParticipant({ratchetWindowMs: 1000});
  window.giveKey = (uid, hex, index) => window.provider.setKey(uid, bytes(hex), index);
  for (const [uid, hex, index] of keys) window.giveKey(uid, hex, index);
  const ch = new srtc.SRTCChannel({logLevel: 'debug', logger: (level, m) => console.log('[srtc ' + level + '] ' + m),
                                   e2ee: {keyProvider: window.provider}});
  window.ch = ch;
  ch.onAny((name, ...args) => window.events.push({name, args: args.map(window.summarize)}));
  await ch.join(location.origin, token);
  done({ok: true, uid: ch.uid});
}).catch((e) => done({ok: false, error: String(e), code: e.code}));
"""


# Alice leaves and comes back in a new channel object with the same keys, publishing a new pattern.
RETURN_JS = PATTERN_JS + """
const [token, done] = arguments;
(async () => {
  await window.ch.leave();
  const ch = new window.srtc.SRTCChannel({e2ee: {keyProvider: window.provider}});
  window.ch = ch;
  await ch.join(location.origin, token);
  await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera'}]);
  done({ok: true});
})().catch((e) => done({ok: false, error: String(e)}));
"""


def decoded(tab):
    return tab.run_async(INBOUND_JS)


def run(server, driver):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS, [["alice", FIRST, 0]])
    alice.run(PATTERN_JS)
    published = alice.call("const [t] = await ch.publishLocalTracks([{track: window.patternTrack, desc: 'camera'}]); return t.id;")
    expect(published["ok"], f"alice published her numbered camera ({published.get('error', 'ok')})")

    bob = Tab.joined(driver, server, "bob", CHANNEL, "bob", JOIN_JS, [["alice", FIRST, 0]], new_window=True)
    camera = bob.wait_remote_track("alice", "video", timeout=WAIT)["id"]
    read_numbers(bob, camera, "alice's camera under key 0")
    carol = Tab.joined(driver, server, "carol", CHANNEL, "carol", JOIN_JS, [["alice", FIRST, 0]], new_window=True)
    read_numbers(carol, camera, "alice's camera under key 0")

    # Carol is removed: alice and bob get key 1, carol does not.
    for tab in (alice, bob):
        tab.run(f"window.giveKey('alice', '{SECOND}', 1);")
    ok("alice and bob were given alice's key 1; carol was not")
    bob.wait_event("e2eeStateChanged", lambda args: args == ["alice", "keyRatcheted"], timeout=WAIT)
    before = max(bob.run(f"return window.read['{camera}'];"))
    newer = bob.wait_value(lambda: bob.run(f"return window.read['{camera}'];"), lambda n: max(n) > before + 30,
                           "bob reading frames sent under key 1", timeout=WAIT)
    ok(f"bob is told keyRatcheted and reads alice's frames on, up to {max(newer)}")

    carol.wait_event("e2eeStateChanged", lambda args: args == ["alice", "missingKey"], timeout=WAIT)
    first = decoded(carol)
    time.sleep(3)
    second = decoded(carol)
    expect(second["packetsReceived"] > first["packetsReceived"] + 30 and second["framesDecoded"] == first["framesDecoded"],
           f"carol still receives alice's packets but decodes no frame under the new key ({first} → {second})")
    ok(f"carol is told missingKey and decodes nothing sent after the ratchet ({second['packetsReceived'] - first['packetsReceived']} packets in 3 s)")

    # Alice leaves and returns: bob forgot her when she left, so her return is reported afresh
    # (`ok` again), and he decodes her new camera. Without forgetting, his last state for her was
    # `ok` already and nothing would be reported.
    mark = len(bob.events())
    returned = alice.run_async(RETURN_JS, server.channel_token(CHANNEL, "alice"))
    expect(returned["ok"], f"alice left and came back ({returned.get('error', 'ok')})")
    bob.wait_event("userDidLeave", lambda args: args[:1] == ["alice"], timeout=WAIT, after=mark)
    again = bob.wait_value(lambda: bob.call("for (const t of ch.remoteTracks) if (t.uid === 'alice' && t.kind === 'video') return t.id; return null;").get("value"),
                           lambda v: v and v != camera, "alice's new camera", timeout=WAIT)
    read_numbers(bob, again, "alice's camera after her return")
    bob.wait_event("e2eeStateChanged", lambda args: args == ["alice", "ok"], timeout=WAIT, after=mark)
    ok("bob forgot alice when she left: her return is reported ok afresh")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("End-to-end encryption with per-participant keys and a ratchet in Chromium", run, wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
