#!/usr/bin/env python3
"""The web SDK's media code (publish and subscribe connections) in headless Chromium against a
real srtc-server: alice and bob are two `SRTCChannel`s of one page. The page records every
signaling request its sockets send (a wrapper around `WebSocket.prototype.send`), so the test reads
the exact requests the SDK makes as well as what the server answers. Beside
test_browser_media.py (decoding through the SFU across windows, layers, the demo page), it checks:

the publish request (mids, kinds, descs, simulcast layers h = camera_big / m = camera_medium /
l = camera_small with sizes, the fake camera being 1280×720) and offer (sendonly, BUNDLE,
rtcp-mux, `a=simulcast:send h;m;l`); track ids from the answer;
subscriber offers answered recvonly and their tracks bound by msid (`trackDidBindRtcTrack`); decoded
video and received audio in `getStats()`; the receive status; the newest revision answered;
`didSwitchLayer`; mute seen as `didUpdateTrack`; an unsubscribed m-section turns inactive and is
reused by the next subscribe, which decodes again; unpublish renegotiates with the m-section
inactive; publishing again; an ICE restart of the publish connection; a publish the server refuses
(over `--max-tracks-per-user`) rolls the connection back and the next publish works; a request the server does not
answer in time (the server is stopped with SIGSTOP for a moment) rejects with `timeout` and its late
answer changes nothing; leave.
"""
import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import SUMMARIZE_JS, Tab, expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402

WAIT_SECONDS = 20
CHANNEL = "sdkmedia"

SETUP_JS = SUMMARIZE_JS + r"""
const [tokens, done] = arguments;
window.events = {alice: [], bob: []};
// Every request the page's sockets send, as JSON (the SDK's own WebSocket, unchanged).
window.sent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (text) {
  try { const m = JSON.parse(text); window.sent.push({type: m.type, data: m.data}); } catch (e) { /* not JSON */ }
  return send.call(this, text);
};
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  window.chs = {};
  for (const uid of ['alice', 'bob']) {
    const ch = new srtc.SRTCChannel({logLevel: 'debug', logger: (level, m) => console.log('[srtc ' + uid + ' ' + level + '] ' + m)});
    ch.onAny((name, ...args) => window.events[uid].push({name, args: args.map(window.summarize)}));
    await ch.join(location.origin, tokens[uid]);
    window.chs[uid] = ch;
  }
  done({ok: true});
}).catch((e) => done({ok: false, error: String(e)}));
"""

CALL_JS = """
const [body, done] = arguments;
const fn = new Function('alice', 'bob', 'srtc', 'return (async () => {' + body + '})()');
fn(window.chs.alice, window.chs.bob, window.srtc).then((value) => done({ok: true, value: window.summarize(value)}),
  (e) => done({ok: false, error: e.message, code: e.code, kind: e.kind}));
"""

INBOUND_JS = """
const done = arguments[0];
window.chs.bob.getStats().then(({subscribe}) => {
  const out = {video: null, audio: null};
  subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video') out.video = {framesDecoded: r.framesDecoded || 0, frameWidth: r.frameWidth || 0, mid: r.mid};
    if (r.type === 'inbound-rtp' && r.kind === 'audio') out.audio = {packetsReceived: r.packetsReceived || 0, mid: r.mid};
  });
  done(out);
}).catch((e) => done({error: String(e)}));
"""


class Page(Tab):
    """The page with both channels; events are per uid."""

    WAIT_SECONDS = WAIT_SECONDS

    def call(self, body):
        return self.run_async(CALL_JS, body)

    def uid_events(self, uid):
        return self.run(f"return window.events['{uid}']")

    def wait_for(self, uid, name, predicate=lambda a: True, after=0):
        def found():
            return next(({"args": e["args"]} for e in self.uid_events(uid)[after:] if e["name"] == name and predicate(e["args"])), None)
        return self.wait_value(found, bool, f"{uid}: {name}")["args"]

    def sent(self, type):
        return [m["data"] for m in self.run("return window.sent") if m["type"] == type]

    def inbound(self, predicate, what):
        return self.wait_value(lambda: self.run_async(INBOUND_JS), predicate, what)


def grant(server, uid):
    return server.channel_token(CHANNEL, uid)


def run(server, driver):
    driver.get(server.base + "/")
    page = Page(driver, driver.current_window_handle, "page")
    setup = page.run_async(SETUP_JS, {"alice": grant(server, "alice"), "bob": grant(server, "bob")})
    expect(setup["ok"], f"alice and bob joined {CHANNEL} on the real server through the SDK ({setup.get('error', 'ok')})")

    # Publish: mic + simulcast camera in one offer.
    result = page.call("""
      const {audio, video} = await srtc.createLocalMediaTracks({audio: true, video: true});
      window.local = {audio, video};
      const ts = await alice.publishLocalTracks([{track: audio, desc: 'mic'}, {track: video, desc: 'camera_big', simulcast: true}]);
      return ts.map((t) => ({id: t.id, kind: t.kind, desc: t.desc}));
    """)
    expect(result["ok"], f"alice published mic + simulcast camera ({result.get('error', 'ok')})")
    audio_id, video_id = result["value"][0]["id"], result["value"][1]["id"]
    expect(result["value"][0]["kind"] == "audio" and result["value"][1]["desc"] == "camera_big" and audio_id.startswith("TR_"),
           f"the local tracks carry the ids the server answered ({audio_id}, {video_id})")
    request = page.sent("publish")[0]
    tracks, offer = request["tracks"], request["sdp"]
    expect([(t["mid"], t["kind"], t["desc"], t["muted"]) for t in tracks] == [("0", "audio", "mic", False), ("1", "video", "camera_big", False)],
           "publish request: tracks by mid 0 (audio, mic) and 1 (video, camera_big)")
    layers = tracks[1]["layers"]
    expect([(l["rid"], l["desc"]) for l in layers] == [("h", "camera_big"), ("m", "camera_medium"), ("l", "camera_small")]
           and layers[0]["width"] == 2 * layers[1]["width"] == 4 * layers[2]["width"] and layers[0]["height"] == 4 * layers[2]["height"]
           and layers[2]["width"] > 0,
           f"publish request: layers h, m, l at {[(l['width'], l['height']) for l in layers]}")
    expect("a=simulcast:send h;m;l" in offer and all(f"a=rid:{rid} send" in offer for rid in "hml"),
           "publish offer: a=simulcast:send h;m;l with a=rid lines (RFC 8853)")
    expect("a=group:BUNDLE 0 1" in offer and offer.count("a=rtcp-mux") == 2 and offer.count("a=sendonly") == 2,
           "publish offer: BUNDLE 0 1, rtcp-mux, both m-sections sendonly")

    # Subscribe to both in a burst.
    video = page.wait_for("bob", "didAddTrack", lambda a: a[1]["track"] == video_id)[1]
    expect([l["desc"] for l in video["layers"]] == ["camera_big", "camera_medium", "camera_small"], "bob got didAddTrack for the simulcast camera")
    page.wait_for("bob", "didAddTrack", lambda a: a[1]["track"] == audio_id)
    result = page.call(f"await Promise.all([bob.subscribe('{video_id}', {{layer: 'camera_small'}}), bob.subscribe('{audio_id}')]);")
    expect(result["ok"], f"bob subscribed to camera (camera_small) and mic ({result.get('error', 'ok')})")
    for track_id in (video_id, audio_id):
        page.wait_for("bob", "trackDidBindRtcTrack", lambda a, t=track_id: a[0]["track"] == t)
    ok("bob's tracks were bound by the msid of the server's subscriber offers (trackDidBindRtcTrack)")
    answer = page.run("return window.chs.bob.peerConnections.subscribe.localDescription.sdp")
    media_sections = [m for m in answer.split("\r\nm=")[1:] if m.startswith(("audio", "video"))]
    expect("a=sendonly" not in answer and all("a=recvonly" in m for m in media_sections) and len(media_sections) == 2,
           "bob answered the server's subscriber offers recvonly (audio and video)")
    stats = page.inbound(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > 0 and (s.get("audio") or {}).get("packetsReceived", 0) > 0,
                         "decoded video and received audio")
    ok(f"bob decodes the camera ({stats['video']['framesDecoded']} frames) and receives the mic ({stats['audio']['packetsReceived']} packets)")
    page.wait_for("bob", "didChangeReceiveStreamStatus", lambda a: a[0]["trackId"] == video_id and a[0]["timedOut"] is False)
    ok("bob got didChangeReceiveStreamStatus(timedOut: false) with the first frames")
    revisions = page.run("const s = window.chs.bob._subscriber; return [s.latestRevision, s.answeredRevision];")
    expect(revisions[0] == revisions[1] >= 1, f"bob answered the newest subscriber offer (revision {revisions[1]})")

    # Layer switch and mute.
    result = page.call(f"await bob.setLayer('{video_id}', 'camera_big'); return bob.remoteTrack('{video_id}').requestedLayer;")
    expect(result["ok"] and result["value"] == "camera_big", "bob's setLayer(camera_big) resolved")
    switched = page.wait_for("bob", "didSwitchLayer", lambda a: a[0]["trackId"] == video_id and a[0]["layer"] == "camera_big")[0]
    expect(switched["previous"] == "camera_small" and page.run(f"return window.chs.bob.remoteTrack('{video_id}').currentLayer") == "camera_big",
           "bob got didSwitchLayer camera_small → camera_big; the track's currentLayer follows")
    result = page.call(f"await alice.mute('{video_id}'); return [alice.localTracks.find((t) => t.id === '{video_id}').muted, window.local.video.enabled];")
    expect(result["ok"] and result["value"] == [True, False], "alice muted her camera (the browser track is disabled)")
    page.wait_for("bob", "didUpdateTrack", lambda a: a[1]["track"] == video_id and a[1]["muted"] is True)
    ok("bob got didUpdateTrack with muted = true")
    page.call(f"await alice.mute('{video_id}', false);")
    page.wait_for("bob", "didUpdateTrack", lambda a: a[1]["track"] == video_id and a[1]["muted"] is False)

    # Unsubscribe turns the m-section inactive; subscribing again reuses it and decodes again.
    result = page.call(f"await bob.unsubscribe('{video_id}');")
    expect(result["ok"], "bob unsubscribed from the camera")
    page.wait_true(f"return window.chs.bob.remoteTrack('{video_id}').mediaStreamTrack === null", "the camera unbound")
    ok("the server's next subscriber offer made the camera's m-section inactive and the SDK unbound it")
    count = "return window.chs.bob.peerConnections.subscribe.getTransceivers().length"
    transceivers = page.run(count)
    # The inactive m-section's statistics may be gone; a new stream counts from 0 again.
    before = (page.inbound(lambda s: True, "stats").get("video") or {}).get("framesDecoded", 0)
    mark = len(page.uid_events("bob"))
    result = page.call(f"await bob.subscribe('{video_id}');")
    page.wait_for("bob", "trackDidBindRtcTrack", lambda a: a[0]["track"] == video_id, after=mark)
    expect(result["ok"] and page.run(count) == transceivers, f"subscribing again reused the inactive m-section ({transceivers} transceivers)")
    stats = page.inbound(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > before + 5, "more decoded frames")
    ok(f"bob decodes the camera again ({before} → {stats['video']['framesDecoded']} frames)")

    # Unpublish renegotiates; publishing again works; ICE restart.
    result = page.call(f"await alice.unpublish('{audio_id}'); return [alice.localTracks.length, alice.peerConnections.publish.signalingState];")
    expect(result["ok"] and result["value"] == [1, "stable"], "alice unpublished her mic with a renegotiation (back to stable)")
    unpublish = page.sent("unpublish")[0]
    expect(unpublish["track_id"] == audio_id and "a=inactive" in unpublish["sdp"], "the unpublish offer marks the mic's m-section inactive")
    page.wait_for("bob", "didRemoveTrack", lambda a: a[1]["track"] == audio_id)
    ok("bob got didRemoveTrack for the mic")
    result = page.call("return (await alice.publishLocalTrack(window.local.audio.clone(), {desc: 'mic'})).id;")
    expect(result["ok"] and result["value"].startswith("TR_"), f"publishing again after an unpublish works ({result.get('value') or result.get('error')})")
    mic2 = result["value"]
    page.wait_for("bob", "didAddTrack", lambda a: a[1]["track"] == mic2)
    result = page.call("await alice._publisher.restartIce(); return alice.peerConnections.publish.signalingState;")
    expect(result["ok"] and result["value"] == "stable" and page.sent("restart_ice")[0]["transport"] == "publish",
           "an ICE restart of the publish connection renegotiated with the server")

    # A request the server does not answer in time rejects with timeout; the late answer is ignored.
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        result = page.call("""
          alice._signal.requestTimeoutMs = 300;
          const started = performance.now();
          try { await alice.ping(); return 'answered'; } catch (e) { return [e.kind, e.code, performance.now() - started >= 290]; }
          finally { alice._signal.requestTimeoutMs = 10000; }
        """)
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    late = page.call("await new Promise((r) => setTimeout(r, 900)); return [alice.connectionState, (await alice.ping()) > 0];")
    expect(result["ok"] and result["value"] == ["timeout", 1006, True] and late["value"] == ["connected", True],
           f"an unanswered request rejects with timeout 1006 after requestTimeoutMs; the late answer changes nothing ({result.get('value')}, {late.get('value')})")

    # A publish over the server's track limit (2) is refused: the connection rolls back to stable
    # and the refused offer's transceiver is set aside, inactive and without a track.
    state_js = ("const pc = window.chs.alice.peerConnections.publish;"
                "return [pc.signalingState, pc.getTransceivers().map((x) => [x.mid, x.direction, !!x.sender.track])];")
    before = page.run(state_js)[1]
    result = page.call("await alice.publishLocalTracks([{track: window.local.audio.clone(), desc: 'mic3'}]);")
    state, refused = page.run(state_js), None
    if len(state[1]) == len(before) + 1:
        refused = state[1][-1]
    expect(not result["ok"] and result["code"] == 42901 and state[0] == "stable" and state[1][:-1] == before and refused and refused[1:] == ["inactive", False],
           f"a publish over the server's track limit rejects with 42901 ({result.get('code')}), rolls the connection back and sets its transceiver aside ({state})")
    # The same connection publishes again once under the limit (the refused transceiver sends the
    # new track): the offer gives it an m-section with a mid, the server answers, bob gets it.
    result = page.call(f"await alice.unpublish('{mic2}'); return (await alice.publishLocalTrack(window.local.audio.clone(), {{desc: 'mic'}})).id;")
    expect(result["ok"] and result["value"].startswith("TR_"), f"publishing again after a refused publish works ({result.get('value') or result.get('error')})")
    mic3 = result["value"]
    page.wait_for("bob", "didAddTrack", lambda a: a[1]["track"] == mic3)
    after = page.run(state_js)
    expect(len(after[1]) == len(state[1]) and after[1][-1][0] is not None and after[1][-1][1:] == ["sendonly", True],
           f"the refused publish's transceiver carries the new mic, no transceiver was added ({after[1]})")
    ok("bob got didAddTrack for the mic published after the refusal")

    # Leave: the other side sees it and the camera ends.
    page.call("await alice.leave();")
    left = page.wait_for("bob", "userDidLeave", lambda a: a[0] == "alice")
    expect(left[1] == "client_leave" and page.run(f"return window.chs.bob.remoteTrack('{video_id}')") is None,
           "bob got userDidLeave(alice, client_leave) and her tracks are gone")


def dump(driver):
    page = Page(driver, driver.current_window_handle, "page")
    for uid in ("alice", "bob"):
        print(f"--- events of {uid} ---")
        for event in page.uid_events(uid) or []:
            print(json.dumps(event)[:400])
    print("--- browser console ---")
    for line in page.console()[-80:]:
        print(line)


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("browser SDK media on the real server", run, ("--max-tracks-per-user", "2"), wait_seconds=WAIT_SECONDS, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
