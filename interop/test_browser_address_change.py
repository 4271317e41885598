#!/usr/bin/env python3
"""Chromium whose address changes mid-call, then whose link is down 10 s (issue 26, docs/network.md "Addresses that change"): the
browser (web SDK) runs in a client namespace of its own, joined straight to the server's
(`ClientServerLab`); a Swift participant (`srtc join`, numbered test pattern and tone) runs beside
the server. Both publish and subscribe to each other. The client's address is then replaced (the
old one removed, as a phone leaving Wi-Fi for cellular); later its link goes down for 10 s and
comes back. Checked after each: the browser decodes the bot's
video again and the bot decodes the browser's, neither sees the other leave, the browser's channel
stays the same session, and after the address change the web SDK replaced both peer connections
by new ones (`transportDidRenew`; after the link down it restarts ICE on the old ones, which
receive again). Printed: how long after the change each direction had frames again, and what the
browser's connections did (ICE states, new connections, a resume).

The issue's bound, media back within 2 s of the new address being usable, is asserted from the
moment the address is usable to the page: Chromium's first local ICE candidate on it (every
connection's candidates are recorded, whichever connection gathers it). Chromium on Linux hands a
new address to WebRTC only 2 s after the kernel has it (its network change notifier's debounce;
docs/network.md, "Where the time goes in Chromium on Linux"), which no page or server can shorten;
the time from the kernel's change is printed beside it (2.1-2.3 s here).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import SUMMARIZE_JS, Tab, expect, ok, run_browser_lab_test, wait_until  # noqa: E402

CHANNEL = "mobile"
WAIT_SECONDS = 30

SETUP_JS = SUMMARIZE_JS + r"""
const [token, done] = arguments;
window.events = [];
window.ice = [];
window.candidates = [];
const start = performance.now();
// Every local candidate of every connection the SDK makes, with when it came: the first on a new
// address is when Chromium made that address usable to the page.
if (!window.RTCPeerConnection.recorded) {
  const Base = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('icecandidate', (e) => {
        if (e.candidate?.address) window.candidates.push({t: (performance.now() - start) / 1000, address: e.candidate.address, type: e.candidate.type});
      });
    }
  };
  window.RTCPeerConnection.recorded = true;
}
import('/sdk/srtc.js').then(async (srtc) => {
  const ch = new srtc.SRTCChannel({logLevel: 'debug', logger: (level, m) => console.log(((performance.now() - start) / 1000).toFixed(2) + ' [srtc ' + level + '] ' + m)});
  window.ch = ch;
  ch.onAny((name, ...args) => window.events.push({name, t: (performance.now() - start) / 1000, args: args.map(window.summarize)}));
  ch.on('didAddTrack', (user, track) => ch.subscribe(track.id, track.kind === 'video' ? {layer: 'camera_big'} : {}).catch((e) => console.log('subscribe: ' + e.message)));
  await ch.join(location.origin, token);
  const {audio, video} = await srtc.createLocalMediaTracks({audio: true, video: {width: 320, height: 180}});
  await ch.publishLocalTracks([{track: audio, desc: 'mic'}, {track: video, desc: 'camera_big'}]);
  const watch = (name, pc) => pc?.addEventListener('iceconnectionstatechange', () => window.ice.push({pc: name, t: (performance.now() - start) / 1000, state: pc.iceConnectionState}));
  for (const [name, pc] of Object.entries(ch.peerConnections)) watch(name, pc);
  // A broken path gets a new connection (docs/network.md, "Addresses that change"): watched too.
  ch.on('transportDidRenew', (name) => {
    window.ice.push({pc: name, t: (performance.now() - start) / 1000, state: 'new connection'});
    watch(name, ch.peerConnections[name]);
    const pc = ch.peerConnections[name];
    const t = () => ((performance.now() - start) / 1000).toFixed(2);
    pc.addEventListener('icecandidate', (e) => console.log(t() + ' ' + name + ' candidate ' + (e.candidate?.candidate ?? 'end')));
    pc.addEventListener('icegatheringstatechange', () => console.log(t() + ' ' + name + ' gathering ' + pc.iceGatheringState));
    pc.addEventListener('connectionstatechange', () => console.log(t() + ' ' + name + ' connection ' + pc.connectionState));
    pc.addEventListener('signalingstatechange', () => console.log(t() + ' ' + name + ' signaling ' + pc.signalingState));
  });
  window.sessionAtJoin = ch.sessionId;
  window.startedAt = start;
  done({ok: true});
}).catch((e) => done({ok: false, error: String(e)}));
"""

INBOUND_JS = """
const done = arguments[0];
window.ch.getStats().then(({subscribe}) => {
  let frames = 0, packets = 0, keyFrames = 0, plis = 0, nacks = 0;
  subscribe?.forEach((r) => {
    if (r.type !== 'inbound-rtp' || r.kind !== 'video') return;
    frames += r.framesDecoded || 0; packets += r.packetsReceived || 0; keyFrames += r.keyFramesDecoded || 0;
    plis += r.pliCount || 0; nacks += r.nackCount || 0;
  });
  done({frames, packets, keyFrames, plis, nacks, t: (performance.now() - window.startedAt) / 1000});
}).catch((e) => done({error: String(e)}));
"""


def bot_frames(bot):
    frames, _ = bot.stats("web", "camera_big")
    return frames


def frames_again(samples):
    """When frames came again after the longest stretch without a new one: (seconds, frames) samples."""
    progress = [t for (t, f), (_, previous) in zip(samples[1:], samples) if f > previous]
    times = [0.0] + progress
    return max(zip(times, times[1:]), key=lambda pair: pair[1] - pair[0], default=(0.0, 0.0))[1]


def usable_to_page(page, address, moved_page_time):
    """Seconds from the kernel's change to the first local candidate any connection of the page
    gathered on `address` (the page's clock; `moved_page_time` is the change on it)."""
    candidates = page.run("return window.candidates")
    times = [c["t"] for c in candidates if c["address"] == address]
    expect(times, f"Chromium gathered a candidate on its new address {address} ({candidates[-6:]})")
    return min(times) - moved_page_time


def run(lab, server, driver, bot):
    driver.get(server.base + "/")
    page = Tab(driver, driver.current_window_handle, "browser")
    page.WAIT_SECONDS = WAIT_SECONDS
    setup = page.run_async(SETUP_JS, server.channel_token(CHANNEL, "web"))
    expect(setup["ok"], f"the browser joined {CHANNEL} from its namespace and published ({setup.get('error', 'ok')})")
    page.wait_value(lambda: page.run_async(INBOUND_JS), lambda s: s.get("frames", 0) >= 15, "the browser decodes the bot's video")
    bot.wait_stats("web", "camera_big", lambda s: s[0] >= 15, "the bot decodes the browser's video", timeout=WAIT_SECONDS)
    ok("media flows both ways before the change")
    time.sleep(2)

    moved = {}
    to_browser, to_bot, moved_page_time = measure(page, bot, "Chromium's address changed", lambda: moved.update(
        address=lab.move_client()) or print("the browser's address: → %s" % moved["address"]))
    usable_after = usable_to_page(page, moved["address"], moved_page_time)
    print(f"network lab, Chromium's address changed: the new address usable to the page (its first candidate) {usable_after:.2f} s"
          f" after the kernel's change; frames again at the browser {to_browser - usable_after:.2f} s after that,"
          f" at the bot {to_bot - usable_after:.2f} s (issue: 2 s)")
    expect(to_browser - usable_after <= 2.0 and to_bot - usable_after <= 2.0,
           "media back both ways within 2 s of the new address being usable to the page")
    renewed = page.run("return window.events.filter((e) => e.name === 'transportDidRenew').map((e) => e.args[0])")
    expect(sorted(renewed) == ["publish", "subscribe"], f"both connections were replaced by new ones after the address change ({renewed})")
    time.sleep(2)
    measure(page, bot, "Chromium's link down 10 s, then up", lambda: (lab.set_client_link(False), time.sleep(10), lab.set_client_link(True)))
    events = page.run("return window.events.map((e) => e.name + ' ' + e.t.toFixed(2))")
    ice = page.run("return window.ice.map((e) => e.pc + ' ' + e.state + ' ' + e.t.toFixed(2))")
    print(f"  the browser's ICE states: {ice}")
    print(f"  the browser's events: {[e for e in events if not e.startswith(('didChangeReceiveStreamStatus', 'didChangeActiveSpeakers', 'didReceiveQuality'))]}")
    if os.environ.get("SRTC_TEST_CONSOLE"):  # the SDK's and the server's logs, to see where the time goes
        for line in page.console():
            print("  " + line)
        print("--- server log ---\n" + server.read_log()[-6000:])
    expect(not any(e.startswith("userDidLeave") for e in events), "the browser never saw the bot leave")
    expect(" web left" not in bot.read_log(), "the bot never saw the browser leave")
    expect(not any(e.startswith("didDisconnect") for e in events), "the browser's channel never disconnected")
    expect(page.run("return window.ch.sessionId") == page.run("return window.sessionAtJoin"), "the browser kept its session")


def measure(page, bot, what, change):
    """Runs `change` (the network changes; it returns when media could flow again), then waits until
    both sides decoded 30 frames more and prints when frames came again, counted from its end."""
    before = (page.run_async(INBOUND_JS), bot_frames(bot))
    change()
    moved_at = time.time()

    # Both sides' frame counts every 0.1 s until each is 30 frames past where it stood at the change.
    samples = []  # (seconds since the change, frames decoded by the browser, by the bot)

    def poll():
        inbound = page.run_async(INBOUND_JS)
        if os.environ.get("SRTC_TEST_CONSOLE"):
            print(f"  {time.time() - moved_at:5.2f} s: the browser's video {inbound}")
        samples.append((time.time() - moved_at, inbound.get("frames", 0), bot_frames(bot)))
        return samples[-1][1] >= before[0]["frames"] + 30 and samples[-1][2] >= before[1] + 30
    wait_until(poll, "both sides decode each other's video again", timeout=WAIT_SECONDS, interval=0.1)
    to_browser, to_bot = frames_again([(t, f) for t, f, _ in samples]), frames_again([(t, f) for t, _, f in samples])
    move_page_time = page.run("return (performance.now() - window.startedAt) / 1000") - (time.time() - moved_at)
    print(f"network lab, {what} (at {move_page_time:.2f} s on the page's clock below, {time.strftime('%H:%M:%S', time.gmtime(moved_at))}"
          f".{int(moved_at * 1000) % 1000:03d} UTC): frames again at the browser"
          f" {to_browser:.2f} s after, at the bot {to_bot:.2f} s after (polled every 0.1 s, the bot's counts every 0.2 s)")
    ok(f"both sides decode each other's video again after: {what}")
    return to_browser, to_bot, move_page_time


def main():
    return run_browser_lab_test("browser address change and link down", run, CHANNEL, "bot",
                                ("--size", "320x180", "--fps", "15", "--stats-interval", "0.2", "--layer", "camera_big"),
                                wait_seconds=WAIT_SECONDS, dump=dump)


def dump(driver):
    """On a failure: the browser's ICE states, events and transports (DTLS state, bytes)."""
    page = Tab(driver, driver.current_window_handle, "browser")
    print("the browser's ICE states:", page.run("return window.ice.map((e) => e.pc + ' ' + e.state + ' ' + e.t.toFixed(2))"))
    print("the browser's events:", page.run("return window.events.map((e) => e.name + ' ' + e.t.toFixed(2))"))
    print("the browser's transports:", page.run_async("""const done = arguments[0];
Promise.all(Object.entries(window.ch.peerConnections).map(async ([name, pc]) => {
  if (!pc) return name + ' none';
  const rows = [];
  (await pc.getStats()).forEach((r) => { if (r.type === 'transport') rows.push(r.dtlsState + ' ' + r.bytesReceived + '/' + r.bytesSent); });
  return name + ' ' + pc.connectionState + ' ' + rows.join(',');
})).then(done, (e) => done(String(e)));"""))


if __name__ == "__main__":
    sys.exit(main())
