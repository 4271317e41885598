#!/usr/bin/env python3
"""`SRTCEngine.decrypt` of the web SDK (docs/sealed-strings.md) in headless Chromium against a
real srtc-server: the backend seals with the signed `POST /server/v1/seal` (the server's Swift
code) and locally with `app_key` by the documented algorithm (Python's `cryptography`); the
browser opens them with WebCrypto using the `seal_key` the server sent at `join` and at IM `login`.

Checked, by exact plaintext (non-ASCII, empty, a leading U+FEFF, the 65,536-byte maximum):
- before any join or login, a string sealed for the browser's uid opens to null (no key);
- after `join`, the browser's strings open, whether sealed before or after the join, by the
  server or locally; after `leave` they still open (keys last as long as the page);
- null for a string sealed for another uid, one character changed, truncated, its box moved under
  another uid's header, a non-canonical base64url spelling, another app, garbage and non-strings;
- IM `login` alone (a second uid, no channel) gives that uid's key, and its strings open;
- the internal opener reads the documentation's worked example.
"""
import base64
import hashlib
import hmac
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import SUMMARIZE_JS, Tab, expect, ok, run_browser_test  # noqa: E402

WAIT_SECONDS = 15
Tab.WAIT_SECONDS = WAIT_SECONDS
UID = "web"
IM_UID = "web.im@x"
OTHER_UID = "someone-else"

LOAD_JS = SUMMARIZE_JS + """
const [done] = arguments;
import('/sdk/srtc.js').then((srtc) => { window.srtc = srtc; window.ch = null; done({ok: true}); })
  .catch((e) => done({ok: false, error: String(e)}));
"""

# Opens every string of the list with the public API: [plaintext or null, …]; an exception is a failure.
DECRYPT_ALL = "return await Promise.all({items}.map((s) => srtc.SRTCEngine.decrypt(s)));"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def local_seal(app_key, app_id, uid, value):
    """docs/sealed-strings.md, the backend's side: HKDF-SHA256 (RFC 5869, one block), AES-256-GCM."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    prk = hmac.new(b"srtc-seal-v1", app_key.encode(), hashlib.sha256).digest()
    key = hmac.new(prk, app_id.encode() + b"\0" + uid.encode() + b"\x01", hashlib.sha256).digest()
    nonce = os.urandom(12)
    header = "srtc1." + app_id + "." + b64url(uid.encode())
    return header + "." + b64url(nonce + AESGCM(key).encrypt(nonce, value.encode(), header.encode()))


def changed_char(sealed):
    """One character of the box changed to another of the alphabet (the string stays well formed)."""
    at = sealed.rindex(".") + 10
    return sealed[:at] + ("A" if sealed[at] != "A" else "B") + sealed[at + 1:]


def non_canonical(sealed):
    """The same box spelled with a non-zero unused low bit in its last character (RFC 4648 §3.5)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    expect(len(sealed[sealed.rindex(".") + 1:]) % 4 != 0, "the box's last character has unused bits")
    return sealed[:-1] + alphabet[alphabet.index(sealed[-1]) ^ 1]


def decrypt_all(tab, items):
    import json
    result = tab.call(DECRYPT_ALL.format(items=json.dumps(items)))
    expect(result["ok"], f"decrypt resolved for {len(items)} strings ({result.get('error', 'ok')})")
    return result["value"]


def run(server, driver):
    def seal(uid, value):
        status, body = server.call("POST", "/server/v1/seal", {"uid": uid, "value": value})
        expect(status == 200 and body["sealed"].startswith(f"srtc1.{server.app_id}."), f"the backend sealed a value for {uid}")
        return body["sealed"]

    secret = "Tür-Code 4711 ✓ — 門 🔑"
    biggest = ("ä€😀" * 7281) + "x" * 7           # 9 × 7281 + 7 = 65,536 bytes of UTF-8
    expect(len(biggest.encode()) == 65536, "the largest plaintext is 65,536 bytes")
    early = seal(UID, secret)                        # sealed before the browser has any key
    mine = {
        "early": early,
        "empty": seal(UID, ""),
        "bom": seal(UID, "\ufeffstarts with a byte-order mark"),
        "biggest": seal(UID, biggest),
        "local": local_seal(server.app_key, server.app_id, UID, "sealed by the backend itself ✓"),
    }
    expected = {"early": secret, "empty": "", "bom": "\ufeffstarts with a byte-order mark", "biggest": biggest,
                "local": "sealed by the backend itself ✓"}
    other = seal(OTHER_UID, secret)
    im_secret = "only for IM ✉ 你好"
    for_im = seal(IM_UID, im_secret)
    # a box of 28 + 1 bytes (not a multiple of 3), so its last base64url character has unused bits
    odd = seal(UID, "a")

    driver.get(server.base + "/")
    tab = Tab(driver, driver.current_window_handle, "browser")
    expect(tab.run_async(LOAD_JS)["ok"], "the page loaded the SDK")

    before = decrypt_all(tab, [early, for_im, None])
    expect(before == [None, None, None], f"before join or login nothing opens ({before})")

    example = tab.call("""
      const { parseSealedString, openSealedString } = await import('/sdk/srtc/sealed-string.js');
      const { decodeBase64URL } = await import('/sdk/srtc/base64url.js');
      const sealed = parseSealedString('srtc1.app_demo.YWxpY2U.AAECAwQFBgcICQoLs60-R0BLNXOLifaytTu7jZeyEqf_5JCZ0f6KDwBQD6Mc');
      return [sealed.appId, sealed.uid, await openSealedString(sealed, decodeBase64URL('Qp4_dbXwO9iuEDv-oaGSEwVMvmzKCX21ZStyuyyG6P8'))];
    """)
    expect(example.get("value") == ["app_demo", "alice", "Hello, Alice! ✓"],
           f"the opener reads the documentation's worked example ({example})")

    joined = tab.call(f"""
      const channel = new srtc.SRTCChannel({{useDataChannel: false}});
      window.ch = channel;
      await channel.join(location.origin, {server.channel_token("sealroom", UID)!r});
      return channel.uid;
    """)
    expect(joined.get("value") == UID, f"the browser joined as {UID} ({joined})")

    names = list(mine)
    opened = decrypt_all(tab, [mine[n] for n in names] + [seal(UID, secret), odd])
    for name, value in zip(names, opened):
        expect(value == expected[name], f"after join, '{name}' opens to its exact plaintext")
    expect(opened[-2] == secret and opened[-1] == "a", "a string sealed after the join opens too")

    moved = for_im[:for_im.rindex(".")] + early[early.rindex("."):]   # my box under another uid's header
    other_app = early.replace(f"srtc1.{server.app_id}.", "srtc1.another_app.", 1)
    bad = {
        "sealed for another uid": other,
        "one character changed": changed_char(early),
        "truncated by 4 characters": early[:-4],
        "truncated to half": early[: len(early) // 2],
        "box moved under another uid's header": moved,
        "non-canonical base64url": non_canonical(odd),
        "another app": other_app,
        "garbage": "garbage",
        "empty string": "",
        "only the prefix": "srtc1.",
        "no box": early[:early.rindex(".")],
        "padding added": early + "=",
        "a lone surrogate": early[:-1] + "\ud800",
    }
    refused = decrypt_all(tab, list(bad.values()))
    for name, value in zip(bad, refused):
        expect(value is None, f"{name} opens to null")
    odd_types = tab.call("return await Promise.all([undefined, null, 42, {}, ['x']].map((s) => srtc.SRTCEngine.decrypt(s)));")
    expect(odd_types.get("value") == [None] * 5, f"non-strings open to null ({odd_types})")
    too_long = tab.call(f"return await srtc.SRTCEngine.decrypt({early!r} + 'A'.repeat(87769));")
    expect(too_long["ok"] and too_long["value"] is None, "a string past 87,769 bytes opens to null")

    expect(decrypt_all(tab, [for_im]) == [None], "the IM uid's string stays closed after the channel join")
    grant_status, grant = server.call("POST", "/server/v1/im/grant", {"uid": IM_UID})
    expect(grant_status == 200, "the backend got an IM token")
    logged_in = tab.call(f"""
      const engine = new srtc.SRTCEngine();
      const im = await engine.enableIm(location.origin, {grant["token"]!r});
      const uid = im.uid;
      engine.disableIm();
      return uid;
    """)
    expect(logged_in.get("value") == IM_UID, f"the browser logged in to IM as {IM_UID} ({logged_in})")

    left = tab.call("await ch.leave(); return ch.isJoined;")
    expect(left.get("value") is False, "the browser left the channel")
    after = decrypt_all(tab, [for_im, early, other, moved])
    expect(after == [im_secret, secret, None, None],
           "after IM login and leave: the IM uid's string opens, the channel uid's still opens, another's does not, "
           f"and my box under the IM uid's header (a key the page now holds) fails authentication ({after})")
    ok("decrypt opened exactly what was sealed for this page's users and nothing else")


def dump(driver):
    tab = Tab(driver, driver.current_window_handle, "browser")
    for line in tab.console()[-40:]:
        print(line)


def main():
    return run_browser_test("web SDK decrypt of sealed strings", run, wait_seconds=WAIT_SECONDS, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
