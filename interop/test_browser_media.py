#!/usr/bin/env python3
"""Web SDK media through the SFU: browser A publishes its fake camera as a simulcast track
(Chromium's fake camera is 1280×720: rids h = camera_big, m = camera_medium, l = camera_small) and its fake microphone with `web/srtc.js`; browser B
subscribes to both through a real srtc-server and must decode the video (`getStats()` inbound-rtp
`framesDecoded > 0`) and receive the audio (`packetsReceived > 0`); then B switches
`camera_small` → `camera_big` and must get `didSwitchLayer` (the server's `layer_switched`) and
frames of the bigger layer. A third window runs the demo page: it plays alice's camera and mic,
highlights her as an active speaker, shows its quality report and switches her camera's layer
with its button. Quality reports (one per second here) reach both browsers. Finally
unsubscribe, unpublish (renegotiated), publishing again and leave are seen on the other side.

It also checks the server's side of the SDP: the publish answer is ICE-lite and BUNDLE, receives
simulcast `h;m;l`, and answers an unpublished (inactive) m-section inactive (RFC 3264 §6.1).

The browser and the server run in a fresh network namespace with only loopback when
`unshare -n` is allowed (as test_browser_echo.py does), so all media stays on 127.0.0.1.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, Server  # noqa: E402
from srtc_test_support import SUMMARIZE_JS, expect, make_driver, ok, reexec_in_loopback_namespace  # noqa: E402
from srtc_test_support import Tab as SupportTab  # noqa: E402

WAIT_SECONDS = 20
CHANNEL = "mediaroom"


# Arguments: the token, then optionally more SRTCChannel options (e.g. {preferredVideoCodec: 'h264'}).
JOIN_JS = SUMMARIZE_JS + """
const args = [...arguments], done = args.pop(), [token, options = {}] = args;
window.events = [];
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  const ch = new srtc.SRTCChannel({logLevel: 'debug', logger: (level, m) => console.log('[srtc ' + level + '] ' + m), ...options});
  window.ch = ch;
  ch.onAny((name, ...args) => window.events.push({name, args: args.map(window.summarize)}));
  await ch.join(location.origin, token);
  done({ok: true, uid: ch.uid});
}).catch((e) => done({ok: false, error: String(e), code: e.code}));
"""

# Inbound statistics of the subscribe connection, by kind, plus outbound per rid on the publish side.
STATS_JS = """
const done = arguments[0];
window.ch.getStats().then(({publish, subscribe}) => {
  const out = {video: null, audio: null, outbound: [], transport: null};
  subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video') out.video = {framesDecoded: r.framesDecoded || 0, packetsReceived: r.packetsReceived || 0, frameWidth: r.frameWidth || 0, frameHeight: r.frameHeight || 0, mid: r.mid};
    if (r.type === 'inbound-rtp' && r.kind === 'audio') out.audio = {packetsReceived: r.packetsReceived || 0, mid: r.mid};
    if (r.type === 'transport') out.transport = {dtlsState: r.dtlsState, srtpCipher: r.srtpCipher};
  });
  publish?.forEach((r) => {
    if (r.type === 'outbound-rtp') out.outbound.push({kind: r.kind, rid: r.rid, framesEncoded: r.framesEncoded, frameWidth: r.frameWidth, packetsSent: r.packetsSent, qualityLimitationReason: r.qualityLimitationReason});
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


class Tab(SupportTab):
    """A window joined with `JOIN_JS`, with its channel's media statistics."""

    WAIT_SECONDS = WAIT_SECONDS

    def stats(self):
        return self.run_async(STATS_JS)

    def wait_stats(self, predicate, what, timeout=WAIT_SECONDS):
        return self.wait_value(self.stats, predicate, what, timeout)


def grant(server, uid):
    return server.channel_token(CHANNEL, uid)


def run(server, driver):
    driver.get(server.base + "/")
    tab_a = Tab(driver, driver.current_window_handle, "A (publisher)")
    driver.switch_to.new_window("window")
    driver.get(server.base + "/")
    tab_b = Tab(driver, driver.current_window_handle, "B (subscriber)")
    for tab, uid in ((tab_a, "alice"), (tab_b, "bob")):
        joined = tab.run_async(JOIN_JS, grant(server, uid))
        expect(joined["ok"], f"{tab.name} joined {CHANNEL} as {uid}")

    # C is the demo page, joined through its form; it subscribes to everything on its own.
    from selenium.webdriver.common.by import By
    driver.switch_to.new_window("window")
    driver.get(server.base + "/")
    tab_c = Tab(driver, driver.current_window_handle, "C (demo page)")
    for field, value in (("channel-name", CHANNEL), ("uid", "carol")):
        element = driver.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    driver.find_element(By.ID, "token").send_keys(grant(server, "carol"))
    driver.find_element(By.ID, "join").click()
    tab_c.wait_true("return window.srtcDemo.channel.connectionState === 'connected'", "demo join")
    ok("C joined through the demo page")

    # A publishes fake mic + simulcast fake camera in one offer.
    published = tab_a.call("""
      const {audio, video} = await srtc.createLocalMediaTracks({audio: true, video: true});
      const tracks = await ch.publishLocalTracks([{track: audio, desc: 'mic'}, {track: video, desc: 'camera_big', simulcast: true}]);
      return tracks.map((t) => ({id: t.id, kind: t.kind, desc: t.desc, layers: t.layers, mid: t.transceiver.mid}));
    """)
    expect(published["ok"], f"A published mic + simulcast camera ({published.get('error') or published.get('value')})")
    audio_id, video_id = published["value"][0]["id"], published["value"][1]["id"]
    sdp = tab_a.run("const pc = window.ch.peerConnections.publish; return {offer: pc.localDescription.sdp, answer: pc.remoteDescription.sdp};")
    expect("a=simulcast:send h;m;l" in sdp["offer"] and all(f"a=rid:{rid} send" in sdp["offer"] for rid in "hml"),
           "A's offer sends simulcast rids h;m;l (RFC 8853)")
    expect("a=ice-lite" in sdp["answer"] and "a=simulcast:recv h;m;l" in sdp["answer"] and "a=group:BUNDLE" in sdp["answer"],
           "the server's answer is ICE-lite, BUNDLE, and receives simulcast h;m;l")

    # B sees both tracks and subscribes: camera at camera_small, mic.
    video = tab_b.wait_event("didAddTrack", lambda a: a[1]["track"] == video_id)[1]
    expect(video["desc"] == "camera_big" and [l["desc"] for l in video["layers"]] == ["camera_big", "camera_medium", "camera_small"],
           "B got didAddTrack for alice's camera with layers camera_big, camera_medium, camera_small")
    tab_b.wait_event("didAddTrack", lambda a: a[1]["track"] == audio_id and a[1]["kind"] == "audio")
    ok("B got didAddTrack for alice's mic")
    for body in (f"await ch.subscribe('{video_id}', {{layer: 'camera_small'}});", f"await ch.subscribe('{audio_id}');"):
        result = tab_b.call(body)
        expect(result["ok"], f"B: {body.strip()} ({result.get('error', 'ok')})")
    for track_id in (video_id, audio_id):
        tab_b.wait_event("trackDidBindRtcTrack", lambda a, t=track_id: a[0]["track"] == t)
    ok("B bound both received MediaStreamTracks (trackDidBindRtcTrack)")

    stats = tab_b.wait_stats(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > 0 and (s.get("audio") or {}).get("packetsReceived", 0) > 0,
                             "decoded video and received audio")
    print(f"    B inbound video {stats['video']}, audio {stats['audio']}, transport {stats['transport']}")
    expect(True, "B decodes alice's video (framesDecoded > 0) and receives her audio (packetsReceived > 0) through the SFU")
    small_width = stats["video"]["frameWidth"]
    tab_b.wait_event("didChangeReceiveStreamStatus", lambda a: a[0]["trackId"] == video_id and a[0]["timedOut"] is False)
    ok("B got didChangeReceiveStreamStatus(timedOut: false) for the first frames")

    # Layer switch camera_small → camera_big.
    mark = len(tab_b.events())
    result = tab_b.call(f"await ch.setLayer('{video_id}', 'camera_big');")
    expect(result["ok"], "B's setLayer(camera_big) was accepted")
    switched = tab_b.wait_event("didSwitchLayer", lambda a: a[0]["trackId"] == video_id and a[0]["layer"] == "camera_big", after=mark)[0]
    expect(switched["uid"] == "alice" and switched.get("previous") == "camera_small",
           f"B got didSwitchLayer camera_small → camera_big (cause {switched.get('cause')})")
    stats = tab_b.wait_stats(lambda s: (s.get("video") or {}).get("frameWidth", 0) > small_width, "a bigger decoded frame")
    print(f"    A outbound {tab_a.stats()['outbound']}")
    expect(True, f"B decodes bigger frames after the switch ({small_width} → {stats['video']['frameWidth']} px wide)")

    # Quality reports (the server sends one per second here): B's downstream carries the video.
    report = tab_b.wait_event("didReceiveQualityReport", lambda a: a[0]["downstream"]["bitrateBps"] > 0)[0]
    expect(report["uid"] == "bob" and report["downstream"]["packets"] > 0 and report["quality"] in ("excellent", "good", "poor", "lost"),
           f"B got didReceiveQualityReport: down {report['downstream']['bitrateBps']} bit/s, RTT {report['rttMs']} ms, {report['quality']}")
    report = tab_a.wait_event("didReceiveQualityReport", lambda a: a[0]["upstream"]["bitrateBps"] > 0)[0]
    expect(report["uid"] == "alice", f"A got didReceiveQualityReport: up {report['upstream']['bitrateBps']} bit/s")
    # They came on the subscribe connection's data channel (docs/protocol.md, "Data channels").
    over_data_channel = tab_b.run("return window.ch._subscriber.dataChannelEvents")
    expect(over_data_channel > 0, f"B got {over_data_channel} events on its data channel (quality, speakers, layers)")
    tab_c.wait_true("return /^up \\d+ kbit\\/s · down [1-9]\\d* kbit\\/s/.test(document.getElementById('my-report').textContent)",
                    "demo quality line")
    ok("the demo page shows its quality report: " + tab_c.run("return document.getElementById('my-report').textContent"))

    # The demo page shows alice's camera, plays her mic, highlights her as a speaker, switches layers.
    tab_c.wait_true("const v = document.querySelector('#remotes .tile video'); return v && v.videoWidth > 0 && !v.paused", "alice's video playing")
    size = tab_c.run("const v = document.querySelector('#remotes .tile video'); return [v.videoWidth, v.videoHeight];")
    ok(f"the demo page plays alice's camera in her tile ({size[0]}x{size[1]}, camera_small)")
    tab_c.wait_true("const a = document.querySelector('#remotes .tile audio'); return a && a.srcObject && a.srcObject.getAudioTracks().length === 1", "alice's audio")
    ok("the demo page plays alice's mic")
    tab_c.wait_true("return document.querySelector('#remotes .tile.speaking') !== null", "speaker highlight")
    ok("the demo page highlights alice's tile as an active speaker")
    driver.switch_to.window(tab_c.handle)
    driver.find_element(By.CSS_SELECTOR, "#remotes .tile .layer").click()
    tab_c.wait_true("return document.querySelector('#remotes .tile .layer').textContent === 'small'", "layer button after switch")
    tab_c.wait_true("return document.querySelector('#remotes .tile video').videoWidth > %d" % size[0], "bigger video")
    ok("the demo page's layer button switched alice's camera to camera_big (didSwitchLayer)")

    # Unsubscribe, unpublish, leave.
    result = tab_b.call(f"await ch.unsubscribe('{video_id}'); return ch.remoteTrack('{video_id}').isSubscribed;")
    expect(result["ok"] and result["value"] is False, "B unsubscribed from the camera")
    result = tab_a.call(f"await ch.unpublish('{audio_id}'); return ch.localTracks.length;")
    expect(result["ok"] and result["value"] == 1, f"A unpublished its mic (renegotiated) ({result.get('error', 'ok')})")
    tab_b.wait_event("didRemoveTrack", lambda a: a[1]["track"] == audio_id)
    ok("B got didRemoveTrack for the mic")
    state = tab_a.run("const pc = window.ch.peerConnections.publish; return [pc.signalingState, pc.currentRemoteDescription.sdp.split('m=')[1].includes('a=inactive')];")
    expect(state == ["stable", True], "the server answered the mic's inactive m-section inactive (RFC 3264 §6.1)")

    # Publishing again after an unpublish: the offer still holds the inactive m-section.
    result = tab_a.call("const {audio} = await srtc.createLocalMediaTracks({audio: true, video: false}); return (await ch.publishLocalTrack(audio, {desc: 'mic'})).id;")
    expect(result["ok"], f"A published a new mic beside the inactive m-section ({result.get('error') or result.get('value')})")
    mic2 = result["value"]
    tab_b.wait_event("didAddTrack", lambda a: a[1]["track"] == mic2)
    before = (tab_b.stats().get("audio") or {}).get("packetsReceived", 0)
    result = tab_b.call(f"await ch.subscribe('{mic2}');")
    expect(result["ok"], "B subscribed to the new mic")
    stats = tab_b.wait_stats(lambda s: (s.get("audio") or {}).get("packetsReceived", 0) > before + 10, "audio of the new mic")
    expect(True, f"B receives the new mic through a reused audio m-section ({stats['audio']})")
    tab_a.call("await ch.leave();")
    left = tab_b.wait_event("userDidLeave", lambda a: a[0] == "alice")
    expect(left[1] == "client_leave", "B got userDidLeave(alice, client_leave); her camera ended")


def main():
    reexec_in_loopback_namespace(__file__)
    driver = None
    with Server(extra_args=("--web-dir", os.path.join(ROOT, "web"), "--quality-interval-seconds", "1")) as server:
        try:
            driver = make_driver(WAIT_SECONDS + 10)
            run(server, driver)
            print("browser media: all checks passed")
            return 0
        except Exception as error:
            print(f"FAIL: {type(error).__name__}: {error}")
            if driver:
                for handle, name in zip(driver.window_handles, ("A (publisher)", "B (subscriber)", "C (demo page)")):
                    tab = Tab(driver, handle, name)
                    try:
                        print(f"--- events of {name} ---")
                        for event in tab.events():
                            print(json.dumps(event)[:400])
                        pcs = tab.run("const p = window.ch && window.ch.peerConnections; return p ? {"
                                      "publish: p.publish && [p.publish.localDescription?.sdp, p.publish.remoteDescription?.sdp], "
                                      "subscribe: p.subscribe && [p.subscribe.remoteDescription?.sdp, p.subscribe.localDescription?.sdp]} : null;")
                        print(f"--- SDP of {name} ---")
                        print(json.dumps(pcs, indent=1)[:6000])
                    except Exception as e:
                        print(f"(no events: {e})")
                    print(f"--- browser console of {name} ---")
                    for line in tab.console():
                        print(line)
            print("--- server log ---")
            print(server.read_log())
            return 1
        finally:
            if driver:
                driver.quit()


if __name__ == "__main__":
    sys.exit(main())
