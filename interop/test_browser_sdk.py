#!/usr/bin/env python3
"""A headless Chromium participant (web/srtc.js) and a Swift SDK participant (`srtc join`, the
SDK's own media stack on Linux) in one channel of a real srtc-server:

- the browser decodes the Swift participant's VP8 test pattern (`getStats()` inbound-rtp
  `framesDecoded > 0`) and receives its Opus (`packetsReceived > 0`);
- the Swift participant receives the browser's fake camera and microphone: its statistics show
  VP8 frames decoded and Opus packets received for the browser's tracks.

Runs in a loopback-only network namespace when `unshare -n` is allowed, like the other media tests.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, Server, bin_path  # noqa: E402
from srtc_test_support import expect, make_driver, ok, reexec_in_loopback_namespace  # noqa: E402
from test_browser_media import JOIN_JS, Tab  # noqa: E402

CHANNEL = "mixed"
WAIT = 25


def grant(server, uid):
    return server.channel_token(CHANNEL, uid)


def bot_stats(log_path, uid, desc):
    """The last statistics line `uid/desc: … N frames, M packets …` of the bot, as (frames, packets)."""
    frames = packets = 0
    with open(log_path, errors="replace") as f:
        for line in f:
            if not line.strip().startswith(f"{uid}/{desc}:"):
                continue
            f_match, p_match = re.search(r"(\d+) frames", line), re.search(r"(\d+) packets", line)
            if f_match and p_match:
                frames, packets = int(f_match.group(1)), int(p_match.group(1))
    return frames, packets


def run(server, driver, bot_log):
    driver.get(server.base + "/")
    tab = Tab(driver, driver.current_window_handle, "browser")
    joined = tab.run_async(JOIN_JS, grant(server, "browser"))
    expect(joined["ok"], f"the browser joined {CHANNEL} ({joined.get('error', 'ok')})")

    # The Swift participant's tracks arrive as didAddTrack (it may have joined first).
    deadline = time.time() + WAIT
    tracks = {}
    while time.time() < deadline and len(tracks) < 2:
        tracks = tab.call("""
          const out = {};
          for (const t of ch.remoteTracks) if (t.uid === 'swiftbot') out[t.kind] = t.id;
          return out;
        """).get("value") or {}
        time.sleep(0.2)
    expect(set(tracks) == {"audio", "video"}, f"the browser sees the Swift participant's audio and video tracks ({tracks})")
    for kind in ("video", "audio"):
        result = tab.call(f"await ch.subscribe('{tracks[kind]}');")
        expect(result["ok"], f"the browser subscribed to the Swift {kind} ({result.get('error', 'ok')})")

    stats = tab.wait_stats(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > 10 and (s.get("audio") or {}).get("packetsReceived", 0) > 20,
                           "decoding the Swift participant's media", timeout=WAIT)
    ok(f"the browser decodes the Swift participant's VP8 ({stats['video']['framesDecoded']} frames, "
       f"{stats['video']['frameWidth']}x{stats['video']['frameHeight']}) and receives its Opus ({stats['audio']['packetsReceived']} packets)")

    published = tab.call("""
      const {audio, video} = await srtc.createLocalMediaTracks({audio: true, video: true});
      const tracks = await ch.publishLocalTracks([{track: audio, desc: 'mic'}, {track: video, desc: 'camera_big', simulcast: true}]);
      return tracks.map((t) => t.id);
    """)
    expect(published["ok"], f"the browser published its fake camera (simulcast) and microphone ({published.get('error', 'ok')})")

    deadline = time.time() + WAIT
    video = audio = (0, 0)
    while time.time() < deadline:
        video, audio = bot_stats(bot_log, "browser", "camera_big"), bot_stats(bot_log, "browser", "mic")
        if video[0] > 10 and audio[1] > 20:
            break
        time.sleep(0.5)
    expect(video[0] > 10 and video[1] > 0, f"the Swift participant decodes the browser's VP8 ({video[0]} frames, {video[1]} packets)")
    expect(audio[1] > 20, f"the Swift participant receives the browser's Opus ({audio[1]} packets)")


def main():
    reexec_in_loopback_namespace(__file__)
    driver = None
    bot = None
    bot_log = os.path.join(tempfile.mkdtemp(prefix="srtc-bot-"), "bot.log")
    with Server(extra_args=("--web-dir", os.path.join(ROOT, "web"))) as server:
        try:
            env = dict(os.environ, SRTC_APP_ID=server.app_id, SRTC_APP_KEY=server.app_key)
            with open(bot_log, "w") as log:
                bot = subprocess.Popen([bin_path("srtc"), "join", "--url", server.base, "--channel", CHANNEL, "--uid", "swiftbot",
                                        "--size", "320x180", "--duration", "120", "--stats-interval", "1"],
                                       env=env, stdout=log, stderr=subprocess.STDOUT)
            driver = make_driver(WAIT + 10)
            run(server, driver, bot_log)
            print("browser and Swift SDK: all checks passed")
            return 0
        except Exception as error:
            print(f"FAIL: {type(error).__name__}: {error}")
            if driver:
                tab = Tab(driver, driver.current_window_handle, "browser")
                print("--- browser events ---")
                for event in tab.events()[-40:]:
                    print(str(event)[:300])
                print("--- browser console ---")
                for line in tab.console()[-60:]:
                    print(line)
            print("--- Swift participant (srtc join) log ---")
            with open(bot_log, errors="replace") as f:
                print(f.read()[-6000:])
            print("--- server log ---")
            print(server.read_log()[-6000:])
            return 1
        finally:
            if bot and bot.poll() is None:
                bot.send_signal(signal.SIGINT)
                try:
                    bot.wait(10)
                except subprocess.TimeoutExpired:
                    bot.kill()
            if driver:
                driver.quit()


if __name__ == "__main__":
    sys.exit(main())
