#!/usr/bin/env python3
"""ICE over TCP when UDP is blocked (RFC 6544, RFC 4571 framing): in a loopback-only network
namespace an nftables rule drops every UDP datagram to the server's media port, and the server
offers passive TCP candidates on `--ice-tcp-port`. Chromium and the Swift SDK (`srtc join`) must
connect over TCP: the browser publishes its camera, the Swift participant publishes a test
pattern, each decodes the other's video. Checks: the browser's publish and subscribe
connections selected a pair whose remote candidate is TCP on the ICE-TCP port; the browser
decodes the Swift participant's VP8; the Swift participant decodes the browser's; the drop rule
counted UDP packets (both really tried UDP first and could not use it).

Needs a network namespace (`unshare -n`, root): without one the rule would block the host's
loopback for everyone, so the test says so and skips.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import JoinBot, free_port, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from srtc_test_support import expect, ok  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402
from test_browser_sdk import bot_stats  # noqa: E402

CHANNEL = "icetcp"
WAIT = 30

# Both connections' selected pair: the remote candidate's protocol and port.
PAIRS_JS = """
const done = arguments[0];
window.ch.getStats().then(({publish, subscribe}) => {
  const pair = (report) => {
    if (!report) return null;
    const byId = new Map();
    report.forEach((r) => byId.set(r.id, r));
    for (const r of byId.values()) {
      if (r.type !== 'transport' || !r.selectedCandidatePairId) continue;
      const p = byId.get(r.selectedCandidatePairId);
      const remote = byId.get(p?.remoteCandidateId);
      return {protocol: remote?.protocol, port: remote?.port, dtlsState: r.dtlsState};
    }
    return null;
  };
  done({publish: pair(publish), subscribe: pair(subscribe)});
}).catch((e) => done({error: String(e)}));
"""


def block_udp(port):
    """An nftables rule in this namespace dropping UDP to `port`; returns a function reading its counter."""
    rules = f"table inet srtc_icetcp {{\n chain input {{\n  type filter hook input priority 0;\n  udp dport {port} counter drop\n }}\n}}\n"
    subprocess.run(["nft", "-f", "-"], input=rules, text=True, check=True)

    def dropped():
        out = subprocess.run(["nft", "list", "table", "inet", "srtc_icetcp"], capture_output=True, text=True).stdout
        match = re.search(r"counter packets (\d+)", out)
        return int(match.group(1)) if match else 0
    return dropped


def run(server, driver, bot, tcp_port, dropped):
    driver.get(server.base + "/")
    tab = Tab(driver, driver.current_window_handle, "browser")
    joined = tab.run_async(JOIN_JS, server.channel_token(CHANNEL, "browser"))
    expect(joined["ok"], f"the browser joined ({joined.get('error', 'ok')})")
    published = tab.call("""
      const {video} = await srtc.createLocalMediaTracks({audio: false, video: true});
      const [track] = await ch.publishLocalTracks([{track: video, desc: 'camera_big'}]);
      return track.id;
    """)
    expect(published["ok"], f"the browser published its camera ({published.get('error', 'ok')})")

    deadline = time.time() + WAIT
    video = None
    while time.time() < deadline and not video:
        video = tab.call("for (const t of ch.remoteTracks) if (t.uid === 'swiftbot' && t.kind === 'video') return t.id; return null;").get("value")
        time.sleep(0.2)
    expect(video, "the browser sees the Swift participant's video track")
    subscribed = tab.call(f"await ch.subscribe('{video}');")
    expect(subscribed["ok"], f"the browser subscribed to it ({subscribed.get('error', 'ok')})")
    stats = tab.wait_stats(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > 10,
                           "decoding the Swift participant's video over ICE-TCP", timeout=WAIT)
    ok(f"the browser decodes the Swift participant's VP8 over ICE-TCP ({stats['video']['framesDecoded']} frames)")

    pairs = tab.run_async(PAIRS_JS)
    for side in ("publish", "subscribe"):
        pair = pairs.get(side) or {}
        expect(pair.get("protocol") == "tcp" and pair.get("port") == tcp_port,
               f"the browser's {side} connection uses the server's TCP candidate ({pair})")

    deadline = time.time() + WAIT
    frames = (0, 0)
    while time.time() < deadline and frames[0] <= 10:
        frames = bot_stats(bot.log_path, "browser", "camera_big")
        time.sleep(0.5)
    expect(frames[0] > 10, f"the Swift participant decodes the browser's VP8 over ICE-TCP ({frames[0]} frames)")
    expect(dropped() > 0, f"UDP to the media port was tried and dropped ({dropped()} datagrams)")


def main():
    reexec_in_loopback_namespace(__file__)
    if not os.environ.get("SRTC_IN_NETNS"):
        print("skipped: blocking UDP needs a network namespace of its own (run as root)")
        return 0
    tcp_port = free_port()
    bots = []

    def run_blocked(server, driver):
        dropped = block_udp(server.udp_port)
        bots.append(JoinBot(server, CHANNEL, "swiftbot", "--size", "320x180", "--audio", "none", "--duration", "120",
                            "--stats-interval", "1"))
        try:
            run(server, driver, bots[0], tcp_port, dropped)
        finally:
            bots[0].stop()

    def dump(driver):
        for line in Tab(driver, driver.current_window_handle, "browser").console()[-60:]:
            print(line)
        for bot in bots:
            print("--- Swift participant (srtc join) log ---")
            print(bot.read_log()[-6000:])

    return run_browser_test("ICE-TCP with UDP blocked", run_blocked, server_args=("--ice-tcp-port", str(tcp_port)),
                            wait_seconds=WAIT, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
