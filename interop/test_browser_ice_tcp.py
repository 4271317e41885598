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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import expect, free_port, ok, reexec_in_loopback_namespace, run_browser_bot_test  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

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
    tab = Tab.joined(driver, server, "the browser", CHANNEL, "browser", JOIN_JS)
    published = tab.call("""
      const {video} = await srtc.createLocalMediaTracks({audio: false, video: true});
      const [track] = await ch.publishLocalTracks([{track: video, desc: 'camera_big'}]);
      return track.id;
    """)
    expect(published["ok"], f"the browser published its camera ({published.get('error', 'ok')})")

    video = tab.wait_remote_track("swiftbot", "video", timeout=WAIT)
    subscribed = tab.call(f"await ch.subscribe('{video['id']}');")
    expect(subscribed["ok"], f"the browser subscribed to it ({subscribed.get('error', 'ok')})")
    stats = tab.wait_stats(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > 10,
                           "decoding the Swift participant's video over ICE-TCP", timeout=WAIT)
    ok(f"the browser decodes the Swift participant's VP8 over ICE-TCP ({stats['video']['framesDecoded']} frames)")

    pairs = tab.run_async(PAIRS_JS)
    for side in ("publish", "subscribe"):
        pair = pairs.get(side) or {}
        expect(pair.get("protocol") == "tcp" and pair.get("port") == tcp_port,
               f"the browser's {side} connection uses the server's TCP candidate ({pair})")

    frames, _ = bot.wait_stats("browser", "camera_big", lambda s: s[0] > 10, "the Swift participant decoding the browser's VP8", WAIT)
    ok(f"the Swift participant decodes the browser's VP8 over ICE-TCP ({frames} frames)")
    expect(dropped() > 0, f"UDP to the media port was tried and dropped ({dropped()} datagrams)")


def main():
    reexec_in_loopback_namespace(__file__)
    if not os.environ.get("SRTC_IN_NETNS"):
        print("skipped: blocking UDP needs a network namespace of its own (run as root)")
        return 0
    tcp_port = free_port()
    dropped = []  # set by prepare: the UDP rule is in place before anyone joins
    return run_browser_bot_test("ICE-TCP with UDP blocked", lambda server, driver, bot: run(server, driver, bot, tcp_port, dropped[0]),
                                CHANNEL, "swiftbot", ("--size", "320x180", "--audio", "none", "--duration", "120", "--stats-interval", "1"),
                                prepare=lambda server: dropped.append(block_udp(server.udp_port)),
                                server_args=("--ice-tcp-port", str(tcp_port)), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
