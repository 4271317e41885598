#!/usr/bin/env python3
"""Media through TURN: a Chromium subscriber with `iceTransportPolicy: "relay"` reaches the SFU
only through a coturn relay and decodes a publisher's video. The test starts coturn itself
(Debian `coturn`, on free loopback ports, shared-secret REST credentials, loopback peers
allowed) and the server with `--turn-urls`/`--turn-secret`; the browser takes the TURN server
and its short-lived credentials from the join response (`ice_servers`). Checks: B's selected
candidate pair is local `relay`, B decodes frames, and coturn logged B's allocation.

Runs in a loopback-only network namespace when `unshare -n` is allowed.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, Server, free_port, stop_gently  # noqa: E402
from srtc_test_support import CALL_JS, dump_browsers, expect, make_driver, ok, reexec_in_loopback_namespace  # noqa: E402

WAIT = 30
CHANNEL = "turnroom"
SECRET = "turn-test-secret-0123456789"

JOIN_JS = """
const [token, policy, done] = arguments;
window.summarize = (value) => value;  // what srtc_test_support's CALL_JS returns
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  const ch = new srtc.SRTCChannel({iceTransportPolicy: policy});
  window.ch = ch;
  await ch.join(location.origin, token);
  done({ok: true});
}).catch((e) => done({ok: false, error: String(e)}));
"""

# The subscribe connection's decoded frames and its selected pair's local candidate type.
STATS_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  const out = {framesDecoded: 0, localType: null, remoteType: null};
  const byId = new Map();
  subscribe?.forEach((r) => byId.set(r.id, r));
  subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video') out.framesDecoded = r.framesDecoded || 0;
    if (r.type === 'transport' && r.selectedCandidatePairId) {
      const pair = byId.get(r.selectedCandidatePairId);
      out.localType = byId.get(pair?.localCandidateId)?.candidateType ?? null;
      out.remoteType = byId.get(pair?.remoteCandidateId)?.candidateType ?? null;
    }
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


def start_coturn(port, log_path):
    """coturn on 127.0.0.1:`port` (UDP and TCP), relaying from 127.0.0.1."""
    relay = free_port(socket.SOCK_DGRAM)
    args = [shutil.which("turnserver") or "/usr/bin/turnserver", "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1",
            f"--listening-port={port}", f"--min-port={relay}", f"--max-port={relay + 20}", "--use-auth-secret",
            f"--static-auth-secret={SECRET}", "--realm=srtc.test", "--allow-loopback-peers", "--no-cli", "--no-tls",
            "--no-dtls", "--fingerprint", f"--log-file={log_path}", "--simple-log", "--verbose",
            f"--pidfile={os.path.join(os.path.dirname(log_path), 'turnserver.pid')}"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 10
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit("coturn did not start")


def run(server, driver, coturn_log):
    tabs = {}
    for name, policy in (("A", "all"), ("B", "relay")):
        if tabs:
            driver.switch_to.new_window("window")
        driver.get(server.base + "/")
        tabs[name] = driver.current_window_handle
        status, body = server.call("POST", "/server/v1/channel/grant", {"channel": CHANNEL, "uid": name.lower()})
        expect(status == 200, f"granted {name} a token")
        joined = driver.execute_async_script(JOIN_JS, body["token"], policy)
        expect(joined["ok"], f"{name} joined with iceTransportPolicy {policy} ({joined.get('error', 'ok')})")
    driver.switch_to.window(tabs["A"])
    published = driver.execute_async_script(CALL_JS, """
      const {video} = await srtc.createLocalMediaTracks({audio: false, video: true});
      const [track] = await ch.publishLocalTracks([{track: video, desc: 'camera_big'}]);
      return track.id;
    """)
    expect(published["ok"], f"A published its camera ({published.get('error', 'ok')})")
    driver.switch_to.window(tabs["B"])
    subscribed = driver.execute_async_script(CALL_JS, f"await ch.subscribe('{published['value']}');")
    expect(subscribed["ok"], f"B subscribed ({subscribed.get('error', 'ok')})")
    deadline = time.time() + WAIT
    stats = {}
    while time.time() < deadline:
        stats = driver.execute_async_script(STATS_JS)
        if stats.get("framesDecoded", 0) > 10 and stats.get("localType"):
            break
        time.sleep(0.3)
    expect(stats.get("localType") == "relay", f"B's selected candidate pair is local relay ({stats})")
    expect(stats.get("framesDecoded", 0) > 10, f"B decodes A's video through the relay ({stats.get('framesDecoded')} frames)")
    with open(coturn_log, errors="replace") as f:
        log = f.read()
    expect("ALLOCATE" in log and "success" in log, "coturn logged a successful allocation")
    ok("relay-only Chromium reached the SFU through coturn")


def main():
    reexec_in_loopback_namespace(__file__)
    if not shutil.which("turnserver"):
        print("FAIL: coturn (turnserver) is not installed: run scripts/install-deps")
        return 1
    work = tempfile.mkdtemp(prefix="srtc-turn-")
    coturn_log = os.path.join(work, "coturn.log")
    turn_port = free_port()
    coturn = start_coturn(turn_port, coturn_log)
    driver = None
    try:
        with Server(extra_args=("--web-dir", os.path.join(ROOT, "web"), "--turn-urls",
                                f"turn:127.0.0.1:{turn_port}?transport=udp", "--turn-secret", SECRET)) as server:
            try:
                driver = make_driver(WAIT + 10)
                run(server, driver, coturn_log)
                print("browser through TURN: all checks passed")
                return 0
            except Exception as error:
                print(f"FAIL: {type(error).__name__}: {error}")
                if driver:
                    dump_browsers(driver, ["A", "B"], server)
                with open(coturn_log, errors="replace") as f:
                    print("--- coturn log ---")
                    print(f.read()[-4000:])
                return 1
            finally:
                if driver:
                    driver.quit()
    finally:
        stop_gently(coturn)


if __name__ == "__main__":
    sys.exit(main())
