#!/usr/bin/env python3
"""A real srtc-server process on free loopback ports; Python's standard library obtains a token,
verifies it independently (HMAC-SHA256 over the JWT), sees each rejection cause answered with its
documented code while the server keeps serving, and runs the README's curl recipe."""
import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, Server, bin_path, call  # noqa: E402


def b64url_decode(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def check_token(token, key, uid, channel):
    header, payload, signature = token.split(".")
    expected = hmac.new(key.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    assert hmac.compare_digest(expected, b64url_decode(signature)), "token signature does not verify with app_key"
    assert json.loads(b64url_decode(header)) == {"alg": "HS256", "typ": "JWT"}
    claims = json.loads(b64url_decode(payload))
    assert claims["sub"] == uid and claims["grant"]["channel"] == channel, claims
    assert claims["exp"] > time.time() + 3000
    return claims


def main():
    with Server() as s:
        status, body = s.call("POST", "/server/v1/channel/grant", {"channel": "room1", "uid": "alice"})
        assert status == 200, (status, body)
        claims = check_token(body["token"], s.app_key, "alice", "room1")
        print(f"ok  grant: token for {claims['sub']} in {claims['grant']['channel']}, expires {body['expire_at']}")

        status, body = s.call("POST", "/stm/srvapi/v1/member/grant", {"uid": "m1", "nickname": "Mia"})
        assert status == 200 and body["token"].count(".") == 2, (status, body)
        print("ok  member grant")

        cases = [
            ("unknown app", call(s.base, "app_nope", s.app_key, "POST", "/server/v1/channel/grant", {"channel": "c", "uid": "u"}), 40102),
            ("wrong key", call(s.base, s.app_id, "not-the-key", "POST", "/server/v1/channel/grant", {"channel": "c", "uid": "u"}), 40105),
            ("timestamp +301 s", s.call("POST", "/server/v1/channel/grant", {"channel": "c", "uid": "u"}, timestamp=int(time.time()) + 301), 40103),
            ("timestamp -301 s", s.call("POST", "/server/v1/channel/grant", {"channel": "c", "uid": "u"}, timestamp=int(time.time()) - 301), 40103),
            ("bad channel", s.call("POST", "/server/v1/channel/grant", {"channel": "a b", "uid": "u"}), 40002),
            ("missing uid", s.call("POST", "/server/v1/channel/grant", {"channel": "c"}), 40001),
        ]
        fixed = s.call("POST", "/server/v1/channel/grant", {"channel": "c", "uid": "u"}, nonce="replayed-nonce-1")
        assert fixed[0] == 200
        cases.append(("nonce replayed", s.call("POST", "/server/v1/channel/grant", {"channel": "c", "uid": "u"}, nonce="replayed-nonce-1"), 40104))
        for name, (status, body), code in cases:
            assert body["code"] == code, f"{name}: expected {code}, got {status} {body}"
            assert s.app_key not in json.dumps(body), f"{name}: app_key leaked"
            print(f"ok  {name}: {status} {code}")

        # The README's curl recipe, run by bash with openssl and coreutils.
        script = f"""
        set -e
        SRTC_APP_ID={s.app_id} SRTC_APP_KEY={s.app_key}
        BODY='{{"channel":"room1","uid":"alice"}}'
        NONCE=$(openssl rand -hex 16); TS=$(date +%s)
        HASH=$(printf '%s' "$BODY" | sha256sum | cut -d' ' -f1)
        SIG=$(printf '%s\\n%s\\n%s\\n%s\\n%s\\n%s' "$SRTC_APP_ID" "$NONCE" "$TS" POST /server/v1/channel/grant "$HASH" \\
              | openssl dgst -sha256 -hmac "$SRTC_APP_KEY" | sed 's/^.* //')
        curl -s {s.base}/server/v1/channel/grant -H 'Content-Type: application/json' \\
          -H "app_id: $SRTC_APP_ID" -H "nonce: $NONCE" -H "timestamp: $TS" -H "signature: $SIG" --data "$BODY"
        """
        out = json.loads(subprocess.check_output(["bash", "-c", script], text=True))
        check_token(out["token"], s.app_key, "alice", "room1")
        print("ok  README curl recipe")

        env = dict(os.environ, SRTC_APP_ID=s.app_id, SRTC_APP_KEY=s.app_key)
        out = json.loads(subprocess.check_output([bin_path("srtc"), "grant", "--url", s.base, "--channel", "room2", "--uid", "bob"], env=env, text=True))
        check_token(out["token"], s.app_key, "bob", "room2")
        decoded = json.loads(subprocess.check_output([bin_path("srtc"), "token", "decode", out["token"]], text=True))
        assert decoded["sub"] == "bob"
        print("ok  srtc grant and srtc token decode")

        # A body over the limit is refused by the HTTP layer, still with the JSON error body.
        big = {"channel": "c", "uid": "u", "pad": "x" * (2 << 20)}
        status, body = s.call("POST", "/server/v1/channel/grant", big)
        assert status == 413 and body["code"] == 41301 and "server_time" in body, (status, body)
        print("ok  oversized body: 413 41301 as JSON")

        status, _ = s.call("POST", "/server/v1/channel/grant", {"channel": "room1", "uid": "carol"})
        assert status == 200, "server stopped serving after bad requests"
        assert s.app_key not in s.read_log(), "app_key appeared in the server log"
        print("server API: all checks passed")


if __name__ == "__main__":
    main()
