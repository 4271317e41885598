#!/usr/bin/env python3
"""Recomputes the signing vectors with Python's standard library (an implementation nobody here
wrote), then checks that `srtc sign` prints the same signatures: the recipe of docs/server-api.md
is checked outside Swift."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, bin_path, sign  # noqa: E402

VECTORS = os.path.join(ROOT, "Tests/SRTCProtocolTests/Fixtures/signing-vectors.json")


def main():
    vectors = json.load(open(VECTORS, encoding="utf-8"))
    assert len(vectors) >= 3, "expected at least three vectors"
    srtc = bin_path("srtc")
    for v in vectors:
        body = v["body"].encode()
        headers = sign(v["app_id"], v["app_key"], v["method"], v["path_and_query"], body, v["nonce"], v["timestamp"])
        assert headers["signature"] == v["signature"], f"{v['name']}: python computed {headers['signature']}"
        out = subprocess.check_output(
            [srtc, "sign", "--app-id", v["app_id"], "--app-key", v["app_key"], "--nonce", v["nonce"],
             "--timestamp", v["timestamp"], "--method", v["method"], "--path", v["path_and_query"],
             "--body", v["body"], "--format", "json"], text=True)
        printed = json.loads(out)
        assert printed["signature"] == v["signature"], f"{v['name']}: srtc sign printed {printed['signature']}"
        assert printed["nonce"] == v["nonce"] and printed["timestamp"] == v["timestamp"]
        print(f"ok  {v['name']}: {v['signature'][:16]}…")
    print(f"signing vectors: {len(vectors)} agree between Python stdlib and srtc sign")


if __name__ == "__main__":
    main()
