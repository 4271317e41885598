#!/usr/bin/env python3
"""End-to-end encrypted data messages (docs/e2ee.md, "Data messages") between Chromium and the Swift
SDK through the server, one shared passphrase:

- the page's WebCrypto code writes docs/e2ee.md's worked example byte for byte as the Swift tests
  (`E2EEDataTests`) do;
- alice (Chromium) sends 20 encrypted messages to swiftbot (`srtc join --e2ee-key --echo-data`),
  which decrypts each (Chromium → Swift) and sends it back encrypted (Swift → Chromium): alice
  reads them all, in order, marked `encrypted`;
- the page hands alice two of swiftbot's encrypted echoes again, as a server replaying them would:
  she is told `didFailToDecryptData` with `replayed` for each and is handed nothing;
- alice broadcasts an encrypted message: eve (another passphrase) is told `didFailToDecryptData`
  with `decryptionFailed`, mallory (no E2EE) with `missingKey`, and neither is handed the bytes.

The browser and the server run in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import SUMMARIZE_JS, expect, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_media import Tab  # noqa: E402

CHANNEL = "e2eedata"
PASSPHRASE = "correct horse battery staple"
WAIT = 30
# docs/e2ee.md, "Data messages": base key 00…0f, kid 0x123, counter 0x4567, topic "chat", "hello".
WORKED_EXAMPLE = "ff5346019901234567bb56212f08c712fa23475c5edba70d132bd471f5a5"

# Joins (with E2EE under `passphrase` unless it is null) and records data messages and failures.
JOIN_JS = SUMMARIZE_JS + """
const [token, passphrase, done] = arguments;
window.events = [];
window.received = [];
window.failures = [];
import('/sdk/srtc.js').then(async (srtc) => {
  const options = {logLevel: 'debug', logger: (level, m) => console.log('[srtc ' + level + '] ' + m)};
  if (passphrase !== null) options.e2ee = {keyProvider: srtc.E2EEKeyProvider.sharedKey(passphrase)};
  const ch = new srtc.SRTCChannel(options);
  window.ch = ch;
  ch.onAny((name, ...args) => window.events.push({name, args: args.map(window.summarize)}));
  ch.on('didReceiveData', (m) => window.received.push({from: m.from, topic: m.topic, encrypted: m.encrypted, text: new TextDecoder().decode(m.data)}));
  ch.on('didFailToDecryptData', (f) => window.failures.push(f));
  await ch.join(location.origin, token);
  done({ok: true});
}).catch((e) => done({ok: false, error: String(e), code: e.code}));
"""

EXAMPLE_JS = """
const done = arguments[0];
import('/sdk/srtc/e2ee-sframe.js').then(async (s) => {
  const te = new TextEncoder(), topic = te.encode('chat');
  const key = await s.frameKey(Uint8Array.from([...Array(16).keys()]), 0x123);
  const out = await s.seal(key, 0x123, 0x4567, s.DATA_MARKER, te.encode('hello'), Uint8Array.from([...s.DATA_MARKER, topic.length, ...topic]));
  done([...out].map((b) => b.toString(16).padStart(2, '0')).join(''));
}).catch((e) => done(String(e)));
"""

DATA_OPEN = "return window.ch._subscriber?.dataChannels?.reliable.readyState === 'open';"


def run(server, driver, bot):
    alice = Tab.joined(driver, server, "alice", CHANNEL, "alice", JOIN_JS, PASSPHRASE)
    example = alice.run_async(EXAMPLE_JS)
    expect(example == WORKED_EXAMPLE, f"WebCrypto writes the worked example as the Swift SDK does ({example})")
    alice.wait_true(DATA_OPEN, "alice's data channel open", WAIT)
    # Keeps the data packets as they arrive (still encrypted), to replay them later.
    alice.run("const deliver = ch._dataMessage.bind(ch); window.raw = []; ch._dataMessage = (m) => { window.raw.push(m); deliver(m); };")

    # The bot prints nothing until data arrives: probe until its encrypted echo comes back.
    def probe():
        alice.call("await ch.publishData('probe', {to: ['swiftbot'], topic: 'probe', encrypted: true});")
        return alice.run("return window.received.some((m) => m.topic === 'probe');")
    alice.wait_value(probe, bool, "swiftbot's encrypted echo of a probe", timeout=WAIT, interval=0.5)
    sent = alice.call("for (let i = 0; i < 20; i++) await ch.publishData('hello ' + i, {to: ['swiftbot'], topic: 'chat', encrypted: true});")
    expect(sent["ok"], f"alice sent 20 encrypted messages ({sent.get('error', 'ok')})")
    echoes = alice.wait_value(lambda: [m for m in alice.run("return window.received;") if m["topic"] == "chat"],
                              lambda got: len(got) >= 20, "20 encrypted echoes", timeout=WAIT)
    expect([m["text"] for m in echoes] == [f"hello {i}" for i in range(20)], "alice reads every echo, in order")
    expect(all(m["encrypted"] and m["from"] == "swiftbot" for m in echoes), "each one encrypted by swiftbot")
    lines = [line for line in bot.read_log().splitlines() if "data from alice (reliable, encrypted, topic chat)" in line]
    expect(len(lines) == 20, f"swiftbot decrypted the 20 messages ({len(lines)} lines)")
    ok("Chromium → Swift → Chromium: 20 encrypted messages decrypted and echoed encrypted, in order")

    # A replay: the last echo and the first one handed in again, as the server could.
    alice.run("const chat = window.raw.filter((m) => m.topic === 'chat'); window.failures = [];"
              "ch._dataMessage(chat.at(-1)); ch._dataMessage(chat[0]);")
    failures = alice.wait_value(lambda: alice.run("return window.failures;"), lambda f: len(f) >= 2, "two refused replays", timeout=WAIT)
    expect(failures == [{"from": "swiftbot", "topic": "chat", "reliable": True, "reason": "replayed"}] * 2,
           f"alice is told didFailToDecryptData with replayed for both ({failures})")
    received = alice.run("return window.received.filter((m) => m.topic === 'chat').length;")
    expect(received == 20, f"alice is handed no replayed message ({received} chat messages)")
    ok("replayed encrypted messages are refused as replayed")

    eve = Tab.joined(driver, server, "eve", CHANNEL, "eve", JOIN_JS, "another passphrase", new_window=True)
    mallory = Tab.joined(driver, server, "mallory", CHANNEL, "mallory", JOIN_JS, None, new_window=True)
    for tab in (eve, mallory):
        tab.wait_true(DATA_OPEN, f"{tab.name}'s data channel open", WAIT)
    sent = alice.call("await ch.publishData('for members only', {topic: 'news', encrypted: true}); ch.publishData('for everyone', {topic: 'news'});")
    expect(sent["ok"], f"alice broadcast an encrypted and a plain message ({sent.get('error', 'ok')})")
    for tab, reason in ((eve, "decryptionFailed"), (mallory, "missingKey")):
        received = tab.wait_value(lambda: tab.run("return window.received;"), lambda got: any(m["text"] == "for everyone" for m in got),
                                  "the plain broadcast", timeout=WAIT)
        failures = tab.wait_value(lambda: tab.run("return window.failures;"), bool, "a decryption failure", timeout=WAIT)
        expect([m["text"] for m in received] == ["for everyone"], f"{tab.name} is handed only the plain message ({received})")
        expect(failures == [{"from": "alice", "topic": "news", "reliable": True, "reason": reason}],
               f"{tab.name} is told didFailToDecryptData with {reason} ({failures})")
        ok(f"{tab.name} gets no ciphertext and is told {reason}")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_bot_test("End-to-end encrypted data messages between Chromium and the Swift SDK", run, CHANNEL, "swiftbot",
                                ("--e2ee-key", PASSPHRASE, "--echo-data", "--no-subscribe", "--size", "160x90", "--duration", "150"),
                                wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
