#!/usr/bin/env python3
"""The WHEP player page in Chromium (issue 32, docs/ingress.md "The WHEP player page"): `/play/` speaks
only WHEP (`web/play/whep-player.js`: one POST of an offer, the answer, a DELETE at the end), no SRTC
signaling. A Swift participant (`srtc join`) publishes a numbered test pattern and a tone; the page
plays its camera and microphone, then a composite of the channel (the egress worker's mix), reading
the frame numbers out of the pixels it shows. Checked too: the player is a user of the channel while
it plays and leaves on stop; a bad token and an unknown uid are refused with the documented statuses;
with `&wait=1` the page waits for a user that is not there yet and plays it once it publishes; a
camera an aiortc user adds after the page's POST plays without a new offer; an aiortc WHIP publisher
(RFC 9725, HTTP only) is decoded by Chromium in the channel (the page reads its frame numbers in
order) and leaves the channel on its `DELETE`.
"""
import os
import sys
import time
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import JoinBot, Tab, expect, ok, reexec_in_loopback_namespace, run_browser_bot_test, wait_until  # noqa: E402
from test_browser_h264 import PATTERN_READER_JS  # noqa: E402

CHANNEL = "whepplay"
WAIT = 30

# Reads the pattern number of every frame the page's <video> shows into `window.readFrames`.
READER_JS = PATTERN_READER_JS + """
const done = arguments[0];
const video = document.getElementById('video');
window.readFrames = [];
const shown = () => {
  window.readFrames.push({n: window.readPatternNumber(video), w: video.videoWidth, h: video.videoHeight});
  video.requestVideoFrameCallback(shown);
};
video.requestVideoFrameCallback(shown);
done(true);
"""

AUDIO_JS = """
const done = arguments[0];
window.player.peerConnection.getStats().then((report) => {
  let packets = 0;
  report.forEach((r) => { if (r.type === 'inbound-rtp' && r.kind === 'audio') packets += r.packetsReceived || 0; });
  done({packets});
}).catch((e) => done({error: String(e)}));
"""

# The strongest frequency of the page's audio (WebAudio on the played stream), Hz.
TONE_JS = """
const done = arguments[0];
if (!window.analyser) {
  const context = new AudioContext();
  const stream = new MediaStream(document.getElementById('video').srcObject.getAudioTracks());
  window.analyser = context.createAnalyser();
  window.analyser.fftSize = 8192;
  context.createMediaStreamSource(stream).connect(window.analyser);
  window.audioContext = context;
}
const bins = new Float32Array(window.analyser.frequencyBinCount);
window.analyser.getFloatFrequencyData(bins);
let best = 0;
for (let i = 1; i < bins.length; i++) if (bins[i] > bins[best]) best = i;
done({hz: best * window.audioContext.sampleRate / window.analyser.fftSize, db: bins[best], state: window.audioContext.state});
"""


def users(server):
    status, body = server.call("POST", "/server/v1/channel/users", {"channel": CHANNEL})
    return [u["uid"] for u in body.get("users", [])] if status == 200 else []


def open_player(driver, server, endpoint, token):
    """Opens `/play/` on `endpoint` and returns the tab once the player started or failed."""
    driver.get(f"{server.base}/play/?endpoint={quote(endpoint)}&token={quote(token)}")
    tab = Tab(driver, driver.current_window_handle, "player")
    wait_until(lambda: tab.run("return window.playerState") != "starting", f"the player on {endpoint} starts or fails", WAIT)
    return tab


def read_numbers(tab, what, count=30, repeats=False):
    """The frames the page showed once `count` were readable; checks their numbers rise. A composite
    (`repeats`) keeps its own frame rate and shows a participant's last picture again when its next
    frame is late (a loaded machine), so there a number may repeat; it must still rise, and most
    frames be new."""
    tab.run_async(READER_JS)
    wait_until(lambda: len([f for f in tab.run("return window.readFrames") if f["n"] is not None]) >= count,
               f"{count} readable frames of {what}", WAIT)
    frames = tab.run("return window.readFrames")
    numbers = [f["n"] for f in frames if f["n"] is not None]
    distinct = len(set(numbers))
    in_order = numbers == sorted(numbers) and (distinct * 2 > len(numbers) if repeats else distinct == len(numbers))
    expect(in_order, f"the page shows {what}: {len(numbers)} frames numbered in order ({numbers[:3]}…{numbers[-3:]}"
           f"{f', {len(numbers) - distinct} shown again' if repeats else ''}), {frames[-1]['w']}×{frames[-1]['h']}"
           + ("" if in_order else f"; numbers: {numbers}"))
    return frames


def run(server, driver, bot):
    viewer = server.channel_token(CHANNEL, "viewer", permissions={"publish": False})
    wait_until(lambda: "swiftbot" in users(server), "the Swift participant in the channel", WAIT)

    # Refusals first, on the page itself: the statuses docs/ingress.md gives.
    tab = open_player(driver, server, f"/whep/v1/{CHANNEL}/swiftbot", "not-a-token")
    error = tab.run("return window.playerError") or {}
    expect(tab.run("return window.playerState") == "error" and error.get("status") == 401,
           f"a bad token is refused: 401 ({error})")
    tab = open_player(driver, server, f"/whep/v1/{CHANNEL}/nobody", viewer)
    error = tab.run("return window.playerError") or {}
    expect(error.get("status") == 404 and error.get("code") == 40401, f"an unknown uid: 404 not_found ({error})")

    # The Swift participant's camera and microphone.
    tab = open_player(driver, server, f"/whep/v1/{CHANNEL}/swiftbot", viewer)
    expect(tab.run("return window.playerState") == "playing", f"the page plays the Swift participant ({tab.run('return window.playerError')})")
    read_numbers(tab, "the Swift participant's camera")
    wait_until(lambda: tab.run_async(AUDIO_JS).get("packets", 0) > 50, "the microphone's packets", WAIT)
    tab.run_async(TONE_JS)
    wait_until(lambda: abs(tab.run_async(TONE_JS)["hz"] - 440) < 15, "the microphone's 440 Hz tone in the page's audio", WAIT)
    ok(f"the page hears the microphone's tone ({tab.run_async(TONE_JS)})")
    expect("viewer" in users(server), "the player is a user of the channel while it plays")
    tab.run_async("const done = arguments[0]; window.player.stop().then(() => done(true), (e) => done(String(e)));")
    wait_until(lambda: "viewer" not in users(server), "the player leaves the channel on stop (DELETE)", WAIT)
    ok("the player left the channel when it stopped (its DELETE)")

    # A composite of the channel: 404 until the egress worker publishes, then its mix.
    status, body = server.call("POST", "/server/v1/channel/composite/start",
                               {"channel": CHANNEL, "uid": "mix", "width": 320, "height": 180, "frame_rate": 30})
    expect(status == 200, f"a composite of the channel started ({status} {body})")
    deadline = time.time() + WAIT
    tab = open_player(driver, server, f"/whep/v1/{CHANNEL}/composite/mix", viewer)
    while tab.run("return window.playerState") != "playing" and time.time() < deadline:
        time.sleep(0.5)
        tab = open_player(driver, server, f"/whep/v1/{CHANNEL}/composite/mix", viewer)
    expect(tab.run("return window.playerState") == "playing", f"the page plays the composite ({tab.run('return window.playerError')})")
    frames = read_numbers(tab, "the composite (the Swift participant's picture in it)", repeats=True)
    expect(frames[-1]["w"] == 320 and frames[-1]["h"] == 180, f"the composite's size: {frames[-1]['w']}×{frames[-1]['h']}")
    server.call("POST", "/server/v1/channel/composite/stop", {"channel": CHANNEL, "uid": "mix"})

    # `&wait=1` before the user is there: the page waits (404 posted again), then plays it.
    driver.get(f"{server.base}/play/?endpoint={quote(f'/whep/v1/{CHANNEL}/latebot')}&token={quote(viewer)}&wait=1")
    tab = Tab(driver, driver.current_window_handle, "waiting player")
    wait_until(lambda: tab.run("return window.playerState") == "waiting", "the page waiting for a user not there yet", WAIT)
    late = JoinBot(server, CHANNEL, "latebot", "--size", "320x180", "--pattern-start", "7000", "--duration", "60")
    try:
        wait_until(lambda: tab.run("return window.playerState") == "playing", "the waiting page plays the user once it publishes", WAIT)
        frames = read_numbers(tab, "the user that joined after the page")
        expect(min(f["n"] for f in frames if f["n"] is not None) >= 7000, "the late user's frames (numbers from 7000)")
        wait_until(lambda: tab.run_async(AUDIO_JS).get("packets", 0) > 50, "the late user's microphone packets", WAIT)
        ok("the page with wait=1 played a user that joined after it")
    finally:
        late.stop()
    run_late_camera(server, driver, viewer)
    run_whip_publisher(server, driver, viewer)


def run_whip_publisher(server, driver, viewer):
    """Issue 32: aiortc as a WHIP client publishes (numbered pattern and tone, no SRTC signaling);
    Chromium in the channel (the WHEP page, a participant) decodes its frames in order; its
    `DELETE` removes the user from the channel."""
    import asyncio
    import threading
    from test_whip_whep import http, whip_publish
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    def run(coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(WAIT)

    pc, location, _, _ = run(whip_publish(server, server.channel_token(CHANNEL, "whipaio"), channel=CHANNEL))
    try:
        wait_until(lambda: "whipaio" in users(server), "the aiortc WHIP publisher in the channel", WAIT)
        tab = open_player(driver, server, f"/whep/v1/{CHANNEL}/whipaio", viewer)
        expect(tab.run("return window.playerState") == "playing", f"the page plays the WHIP publisher ({tab.run('return window.playerError')})")
        read_numbers(tab, "the aiortc WHIP publisher's camera")
        wait_until(lambda: tab.run_async(AUDIO_JS).get("packets", 0) > 50, "the WHIP publisher's audio packets in Chromium", WAIT)
        ok("Chromium decodes the aiortc WHIP publisher's camera in order and receives its audio")
        status, _, _ = http("DELETE", location)
        expect(status == 200, f"the WHIP DELETE answers 200 ({status})")
        wait_until(lambda: "whipaio" not in users(server), "the WHIP publisher gone after its DELETE", WAIT)
        ok("the WHIP publisher left the channel on its DELETE")
    finally:
        run(pc.close())
        loop.call_soon_threadsafe(loop.stop)


def run_late_camera(server, driver, viewer):
    """docs/ingress.md, "Tracks published later", in Chromium: an aiortc user publishes a tone,
    the page plays it, then the user adds its camera and the page shows its frames in order with
    no new offer (the waiting video section takes the unsignaled SSRC by payload type)."""
    import asyncio
    import threading
    from aiortc_participant import AiortcParticipant, pattern_track
    from test_whip_whep import tone_track
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    def run(coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(WAIT)

    async def join():
        publisher = AiortcParticipant(server.base, server.channel_token(CHANNEL, "lateaio"))
        await publisher.join()
        await publisher.publish(tone_track(), "mic")
        return publisher
    publisher = run(join())
    try:
        tab = open_player(driver, server, f"/whep/v1/{CHANNEL}/lateaio", viewer)
        expect(tab.run("return window.playerState") == "playing", f"the page plays a user with only a tone ({tab.run('return window.playerError')})")
        wait_until(lambda: tab.run_async(AUDIO_JS).get("packets", 0) > 20, "the tone's packets", WAIT)

        async def add_camera():
            await publisher.add_track(pattern_track(), "camera_big")
        run(add_camera())
        read_numbers(tab, "the camera added after the page's POST")
        ok("the page shows the camera its user published after the POST")
    finally:
        run(publisher.close())
        loop.call_soon_threadsafe(loop.stop)


def main():
    reexec_in_loopback_namespace(__file__, lo_address="10.213.0.1")  # aiortc gathers no 127.0.0.1
    return run_browser_bot_test("The WHEP player page", run, CHANNEL, "swiftbot",
                                ("--size", "320x180", "--stats-interval", "1", "--duration", "120"), wait_seconds=WAIT)


if __name__ == "__main__":
    sys.exit(main())
