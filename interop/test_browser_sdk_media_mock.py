#!/usr/bin/env python3
"""The web SDK's media code (publish and subscribe connections) against a stand-in SFU that runs
in the page: `window.WebSocket` is replaced by an in-page socket whose far end speaks the
signaling protocol of docs/protocol.md and forwards media with Chromium's own RTCPeerConnections
(answering each publish offer, offering each subscriber its tracks with `a=msid:<uid> <track id>`,
revision by revision). Beside test_browser_media.py (the real SFU), it checks the exact requests
the SDK sends and paths the real server does not take on demand: a refused publish, an ICE
restart with new credentials, an unanswered request.

Checked: the publish request (mids, kinds, descs, simulcast layers h = camera_big / l =
camera_small with sizes) and offer (sendonly, BUNDLE, rtcp-mux, `a=simulcast:send h;l`);
track ids from the response; a subscriber offer answered recvonly and its tracks bound by msid
(`trackDidBindRtcTrack`); decoded video and received audio in `getStats()`; the receive status;
`didSwitchLayer`; mute seen as `didUpdateTrack`/`didMute`; an unsubscribed m-section turns
inactive and is reused by the next subscribe, which decodes again; unpublish renegotiates;
a refused publish rolls the connection back and the next publish works; an ICE restart of the
publish connection; a request timeout.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, Server  # noqa: E402
from srtc_test_support import CheckFailed, expect, make_driver, ok, reexec_in_loopback_namespace  # noqa: E402

WAIT_SECONDS = 20

# The stand-in SFU. Each participant has a server-side publish PC (answers the client's offers)
# and subscribe PC (offers the client the tracks it subscribed to). Negotiations per PC run in order.
MOCK_JS = r"""
const mock = window.mock = {users: new Map(), tracks: new Map(), nextTrack: 1, log: [], requests: []};
const note = (text) => { mock.log.push(text); console.log('[mock] ' + text); };
const serial = (user, key, task) => { const run = (user[key] || Promise.resolve()).then(task, task); user[key] = run.catch((e) => note('task failed: ' + e)); return run; };
const gathered = (pc) => pc.iceGatheringState === 'complete' ? Promise.resolve() : new Promise((resolve) => {
  const check = () => { if (pc.iceGatheringState === 'complete') { pc.removeEventListener('icegatheringstatechange', check); resolve(); } };
  pc.addEventListener('icegatheringstatechange', check); setTimeout(resolve, 3000);
});
const pcConfig = {bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'};

class FakeWebSocket {
  static CONNECTING = 0; static OPEN = 1; static CLOSING = 2; static CLOSED = 3;
  constructor(url) {
    this.url = url; this.readyState = 0;
    setTimeout(() => { this.readyState = 1; this.onopen?.({}); }, 0);
  }
  send(text) {
    if (this.readyState !== 1) throw new Error('not open');
    setTimeout(() => receive(this, JSON.parse(text)), 0);
  }
  close(code = 1000, reason = '') {
    if (this.readyState >= 2) return;
    this.readyState = 3;
    setTimeout(() => { socketClosed(this); this.onclose?.({code, reason, wasClean: true}); }, 0);
  }
  deliver(message) { if (this.readyState === 1) setTimeout(() => this.onmessage?.({data: JSON.stringify(message)}), 0); }
}
window.WebSocket = FakeWebSocket;

function userInfo(u) { return {uid: u.uid, joined_at: u.joinedAt, tracks: [...mock.tracks.values()].filter((t) => t.info.uid === u.uid).map((t) => t.info)}; }
function others(u) { return [...mock.users.values()].filter((o) => o !== u); }
function broadcast(u, type, data) { for (const o of others(u)) o.ws.deliver({type, data}); }

function socketClosed(ws) {
  const u = [...mock.users.values()].find((x) => x.ws === ws);
  if (u && !u.left) note('socket of ' + u.uid + ' closed');
}

async function receive(ws, m) {
  mock.requests.push({type: m.type, data: m.data});
  const respond = (data) => ws.deliver({id: m.id, type: m.type, ok: true, ...(data ? {data} : {})});
  const fail = (code, message) => ws.deliver({id: m.id, type: m.type, ok: false, error: {code, message}});
  if (m.type === 'join') {
    const uid = m.data.token;
    const u = {uid, ws, joinedAt: Date.now(), subs: new Map(), revision: 0};
    mock.users.set(uid, u);
    respond({session_id: 'SE_' + uid, resumed: false, channel: {channel: 'mock', created_at: 1, user_count: mock.users.size},
             me: userInfo(u), users: others(u).map(userInfo), reconnect_grace_seconds: 20, server_time: Date.now(), subscriptions: []});
    broadcast(u, 'user_joined', userInfo(u));
    return;
  }
  const u = [...mock.users.values()].find((x) => x.ws === ws);
  try {
    switch (m.type) {
      case 'publish': return await publish(u, m.data, respond, fail);
      case 'unpublish': return await unpublish(u, m.data, respond);
      case 'mute': {
        const t = mock.tracks.get(m.data.track_id);
        t.info = {...t.info, muted: m.data.muted};
        respond();
        broadcast(u, 'track_updated', {uid: u.uid, track: t.info});
        return;
      }
      case 'subscribe': {
        const t = mock.tracks.get(m.data.track_id);
        if (!t) return fail(40401, 'no track ' + m.data.track_id);
        u.subs.set(t.info.id, {layer: m.data.layer ?? null});
        respond();
        return renegotiate(u);
      }
      case 'unsubscribe': u.subs.delete(m.data.track_id); respond(); return renegotiate(u);
      case 'set_layer': {
        const sub = u.subs.get(m.data.track_id);
        const previous = sub.layer;
        sub.layer = m.data.layer;
        respond();
        setTimeout(() => u.ws.deliver({type: 'layer_switched', data: {uid: mock.tracks.get(m.data.track_id).info.uid,
          track_id: m.data.track_id, layer: m.data.layer, previous, cause: 'subscriber'}}), 100);
        return;
      }
      case 'subscriber_answer': {
        if (m.data.revision !== u.revision) return fail(40901, 'stale revision ' + m.data.revision);
        await u.subPc.setRemoteDescription({type: 'answer', sdp: m.data.sdp});
        u.answered?.();
        return respond();
      }
      case 'restart_ice': {
        if (m.data.transport !== 'publish') return fail(40002, 'mock restarts publish only');
        await u.pubPc.setRemoteDescription({type: 'offer', sdp: m.data.sdp});
        await u.pubPc.setLocalDescription(await u.pubPc.createAnswer());
        await gathered(u.pubPc);
        return respond({sdp: u.pubPc.localDescription.sdp, tracks: []});
      }
      case 'ping': if (mock.silent) { note('ping left unanswered'); setTimeout(() => respond({server_time: Date.now()}), 800); return; }
        return respond({server_time: Date.now()});
      case 'leave': u.left = true; respond(); mock.users.delete(u.uid); broadcast(u, 'user_left', {uid: u.uid, reason: 'client_leave'}); ws.close(); return;
      default: return fail(40001, 'mock does not do ' + m.type);
    }
  } catch (e) {
    note(m.type + ' failed: ' + e);
    fail(50001, String(e));
  }
}

async function publish(u, data, respond, fail) {
  if (data.tracks.some((t) => t.desc === 'refuse-me')) return fail(40301, 'token does not allow publish');
  return serial(u, 'pubQueue', async () => {
    if (!u.pubPc) {
      u.pubPc = new RTCPeerConnection(pcConfig);
      u.pubPc.ontrack = (e) => { const t = [...mock.tracks.values()].find((x) => x.publisher === u && x.mid === e.transceiver.mid); if (t) t.track = e.track; else u.pendingTracks = [...(u.pendingTracks || []), e]; };
    }
    await u.pubPc.setRemoteDescription({type: 'offer', sdp: data.sdp});
    await u.pubPc.setLocalDescription(await u.pubPc.createAnswer());
    await gathered(u.pubPc);
    const infos = data.tracks.map((t) => {
      const id = 'TR_' + (mock.nextTrack++);
      const info = {id, uid: u.uid, kind: t.kind, desc: t.desc, muted: t.muted, layers: t.layers, codec: t.kind === 'audio' ? 'opus' : 'VP8'};
      const transceiver = u.pubPc.getTransceivers().find((x) => x.mid === t.mid);
      const track = transceiver?.receiver.track;
      if (track?.kind === 'audio') {
        // Chromium forwards a received audio track only while something plays it.
        const sink = new Audio();
        sink.muted = true;
        sink.srcObject = new MediaStream([track]);
        sink.play().catch(() => {});
      }
      mock.tracks.set(id, {info, publisher: u, mid: t.mid, track});
      return info;
    });
    respond({sdp: u.pubPc.localDescription.sdp, tracks: infos});
    for (const info of infos) broadcast(u, 'track_added', {uid: u.uid, track: info});
  });
}

async function unpublish(u, data, respond) {
  return serial(u, 'pubQueue', async () => {
    const t = mock.tracks.get(data.track_id);
    mock.tracks.delete(data.track_id);
    let sdp = null;
    if (data.sdp) {
      await u.pubPc.setRemoteDescription({type: 'offer', sdp: data.sdp});
      await u.pubPc.setLocalDescription(await u.pubPc.createAnswer());
      sdp = u.pubPc.localDescription.sdp;
    }
    respond(sdp ? {sdp, tracks: []} : undefined);
    broadcast(u, 'track_removed', {uid: u.uid, track: t.info});
    for (const o of others(u)) if (o.subs.delete(data.track_id)) renegotiate(o);
  });
}

// Offers `u` every track it subscribes to: one sendonly m-section each, reusing inactive ones.
function renegotiate(u) {
  return serial(u, 'subQueue', async () => {
    if (!u.subPc) u.subPc = new RTCPeerConnection(pcConfig);
    u.carried = u.carried || new Map(); // mid → track id
    for (const x of u.subPc.getTransceivers()) {
      const id = u.carried.get(x.mid);
      if (id && !u.subs.has(id)) { await x.sender.replaceTrack(null); x.direction = 'inactive'; u.carried.delete(x.mid); }
    }
    for (const id of u.subs.keys()) {
      if ([...u.carried.values()].includes(id)) continue;
      const t = mock.tracks.get(id);
      const free = u.subPc.getTransceivers().find((x) => x.mid && !u.carried.has(x.mid) && x.direction === 'inactive' && x.receiver.track.kind === t.info.kind);
      const x = free || u.subPc.addTransceiver(t.track, {direction: 'sendonly'});
      if (free) { await free.sender.replaceTrack(t.track); free.direction = 'sendonly'; }
      x._trackId = id;
    }
    await u.subPc.setLocalDescription(await u.subPc.createOffer());
    await gathered(u.subPc);
    for (const x of u.subPc.getTransceivers()) if (x._trackId && x.mid) { u.carried.set(x.mid, x._trackId); delete x._trackId; }
    // Name each sending m-section's track the way the server does: a=msid:<uid> <track id>.
    const sdp = u.subPc.localDescription.sdp.split(/\r\n/).reduce((acc, line) => {
      if (line.startsWith('m=')) acc.mid = null;
      if (line.startsWith('a=mid:')) acc.mid = line.slice(6);
      if (line.startsWith('a=msid:') || line.startsWith('a=ssrc:') && line.includes(' msid:')) {
        const id = u.carried.get(acc.mid);
        if (!id) return acc;
        if (line.startsWith('a=msid:')) { acc.lines.push('a=msid:' + mock.tracks.get(id).info.uid + ' ' + id); return acc; }
        return acc;
      }
      acc.lines.push(line);
      return acc;
    }, {lines: [], mid: null}).lines.join('\r\n');
    u.revision += 1;
    const answered = new Promise((resolve) => { u.answered = resolve; setTimeout(resolve, 5000); });
    u.ws.deliver({type: 'subscriber_offer', data: {sdp, revision: u.revision}});
    await answered;
  });
}
"""

SETUP_JS = MOCK_JS + r"""
const done = arguments[arguments.length - 1];
window.events = {alice: [], bob: []};
window.summarize = (a) => {
  if (a && typeof a === 'object' && 'mediaStreamTrack' in a) return {track: a.id, uid: a.uid, kind: a.kind, desc: a.desc, muted: a.muted, layers: a.layers};
  if (a instanceof Error) return {error: a.message, code: a.code, kind: a.kind};
  try { return JSON.parse(JSON.stringify(a === undefined ? null : a)); } catch (e) { return String(a); }
};
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  window.chs = {};
  for (const uid of ['alice', 'bob']) {
    const ch = new srtc.SRTCChannel({logLevel: 'debug', logger: (level, m) => console.log('[srtc ' + uid + ' ' + level + '] ' + m)});
    ch.onAny((name, ...args) => window.events[uid].push({name, args: args.map(window.summarize)}));
    await ch.join('http://mock.invalid', uid);
    window.chs[uid] = ch;
  }
  done({ok: true});
}).catch((e) => done({ok: false, error: String(e)}));
"""

CALL_JS = """
const [body, done] = arguments;
const fn = new Function('alice', 'bob', 'srtc', 'mock', 'return (async () => {' + body + '})()');
fn(window.chs.alice, window.chs.bob, window.srtc, window.mock).then((value) => done({ok: true, value: window.summarize(value)}),
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


class Page:
    def __init__(self, driver):
        self.driver = driver

    def call(self, body):
        return self.driver.execute_async_script(CALL_JS, body)

    def events(self, uid):
        return self.driver.execute_script(f"return window.events['{uid}']")

    def wait_event(self, uid, name, predicate=lambda a: True, after=0, timeout=WAIT_SECONDS):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for event in self.events(uid)[after:]:
                if event["name"] == name and predicate(event["args"]):
                    return event["args"]
            time.sleep(0.2)
        raise CheckFailed(f"{uid}: no {name} within {timeout} s")

    def wait_inbound(self, predicate, what, timeout=WAIT_SECONDS):
        deadline = time.time() + timeout
        stats = {}
        while time.time() < deadline:
            stats = self.driver.execute_async_script(INBOUND_JS)
            if predicate(stats):
                return stats
            time.sleep(0.25)
        raise CheckFailed(f"{what} not reached within {timeout} s; last {json.dumps(stats)}")


def run(server, driver):
    driver.get(server.base + "/")
    setup = driver.execute_async_script(SETUP_JS)
    expect(setup["ok"], f"alice and bob joined the in-page stand-in SFU through the SDK ({setup.get('error', 'ok')})")
    page = Page(driver)

    # Publish: mic + simulcast camera in one offer.
    result = page.call("""
      const {audio, video} = await srtc.createLocalMediaTracks({audio: true, video: true});
      window.local = {audio, video};
      const ts = await alice.publishLocalTracks([{track: audio, desc: 'mic'}, {track: video, desc: 'camera_big', simulcast: true}]);
      return ts.map((t) => ({id: t.id, kind: t.kind, desc: t.desc}));
    """)
    expect(result["ok"], f"alice published mic + simulcast camera ({result.get('error', 'ok')})")
    audio_id, video_id = result["value"][0]["id"], result["value"][1]["id"]
    expect(result["value"][0]["kind"] == "audio" and result["value"][1]["desc"] == "camera_big",
           f"the local tracks carry the ids the server answered ({audio_id}, {video_id})")
    request = driver.execute_script("return window.mock.requests.find((r) => r.type === 'publish').data")
    tracks, offer = request["tracks"], request["sdp"]
    expect([(t["mid"], t["kind"], t["desc"], t["muted"]) for t in tracks] == [("0", "audio", "mic", False), ("1", "video", "camera_big", False)],
           "publish request: tracks by mid 0 (audio, mic) and 1 (video, camera_big)")
    layers = tracks[1]["layers"]
    expect([(l["rid"], l["desc"]) for l in layers] == [("h", "camera_big"), ("l", "camera_small")]
           and layers[0]["width"] == 4 * layers[1]["width"] and layers[0]["height"] == 4 * layers[1]["height"] and layers[1]["width"] > 0,
           f"publish request: layers h = camera_big {layers[0]['width']}x{layers[0]['height']}, l = camera_small {layers[1]['width']}x{layers[1]['height']}")
    expect("a=simulcast:send h;l" in offer and "a=rid:h send" in offer and "a=rid:l send" in offer,
           "publish offer: a=simulcast:send h;l with a=rid lines (RFC 8853)")
    expect("a=group:BUNDLE 0 1" in offer and offer.count("a=rtcp-mux") == 2 and offer.count("a=sendonly") == 2,
           "publish offer: BUNDLE 0 1, rtcp-mux, both m-sections sendonly")

    # Subscribe to both in a burst.
    video = page.wait_event("bob", "didAddTrack", lambda a: a[1]["track"] == video_id)[1]
    expect([l["desc"] for l in video["layers"]] == ["camera_big", "camera_small"], "bob got didAddTrack for the simulcast camera")
    page.wait_event("bob", "didAddTrack", lambda a: a[1]["track"] == audio_id)
    result = page.call(f"await Promise.all([bob.subscribe('{video_id}', {{layer: 'camera_small'}}), bob.subscribe('{audio_id}')]);")
    expect(result["ok"], "bob subscribed to camera (camera_small) and mic")
    for track_id in (video_id, audio_id):
        page.wait_event("bob", "trackDidBindRtcTrack", lambda a, t=track_id: a[0]["track"] == t)
    ok("bob's tracks were bound by the msid of the subscriber offers (trackDidBindRtcTrack)")
    answer = driver.execute_script("return window.chs.bob.peerConnections.subscribe.localDescription.sdp")
    expect("a=sendonly" not in answer and answer.count("a=recvonly") == 2, "bob answered the subscriber offers recvonly")
    stats = page.wait_inbound(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > 0 and (s.get("audio") or {}).get("packetsReceived", 0) > 0,
                              "decoded video and received audio")
    expect(True, f"bob decodes the camera ({stats['video']['framesDecoded']} frames) and receives the mic ({stats['audio']['packetsReceived']} packets)")
    page.wait_event("bob", "didChangeReceiveStreamStatus", lambda a: a[0]["trackId"] == video_id and a[0]["timedOut"] is False)
    ok("bob got didChangeReceiveStreamStatus(timedOut: false) with the first frames")
    revisions = driver.execute_script("const s = window.chs.bob._subscriber; return [s.latestRevision, s.answeredRevision];")
    expect(revisions[0] == revisions[1] >= 1, f"bob answered the newest subscriber offer (revision {revisions[1]})")

    # Layer switch and mute.
    result = page.call(f"await bob.setLayer('{video_id}', 'camera_big'); return bob.remoteTrack('{video_id}').requestedLayer;")
    expect(result["ok"] and result["value"] == "camera_big", "bob's setLayer(camera_big) resolved")
    switched = page.wait_event("bob", "didSwitchLayer", lambda a: a[0]["trackId"] == video_id)[0]
    expect(switched["layer"] == "camera_big" and switched["previous"] == "camera_small"
           and driver.execute_script(f"return window.chs.bob.remoteTrack('{video_id}').currentLayer") == "camera_big",
           "bob got didSwitchLayer camera_small → camera_big; the track's currentLayer follows")
    result = page.call(f"await alice.mute('{video_id}'); return [alice.localTracks.find((t) => t.id === '{video_id}').muted, window.local.video.enabled];")
    expect(result["ok"] and result["value"] == [True, False], "alice muted her camera (the browser track is disabled)")
    page.wait_event("bob", "didUpdateTrack", lambda a: a[1]["track"] == video_id and a[1]["muted"] is True)
    ok("bob got didUpdateTrack with muted = true")
    page.call(f"await alice.mute('{video_id}', false);")

    # Unsubscribe turns the m-section inactive; subscribing again reuses it and decodes again.
    result = page.call(f"await bob.unsubscribe('{video_id}');")
    expect(result["ok"], "bob unsubscribed from the camera")
    deadline = time.time() + WAIT_SECONDS
    while time.time() < deadline and driver.execute_script(f"return window.chs.bob.remoteTrack('{video_id}').mediaStreamTrack") is not None:
        time.sleep(0.2)
    expect(driver.execute_script(f"return window.chs.bob.remoteTrack('{video_id}').mediaStreamTrack") is None,
           "the next subscriber offer made the camera's m-section inactive and the SDK unbound it")
    before = page.wait_inbound(lambda s: True, "stats")["video"]["framesDecoded"]
    mark = len(page.events("bob"))
    result = page.call(f"await bob.subscribe('{video_id}');")
    page.wait_event("bob", "trackDidBindRtcTrack", lambda a: a[0]["track"] == video_id, after=mark)
    mids = driver.execute_script("return window.chs.bob.peerConnections.subscribe.getTransceivers().map((x) => x.mid)")
    expect(result["ok"] and len(mids) == 2, f"subscribing again reused the inactive m-section (mids {mids})")
    stats = page.wait_inbound(lambda s: (s.get("video") or {}).get("framesDecoded", 0) > before + 5, "more decoded frames")
    expect(True, f"bob decodes the camera again ({before} → {stats['video']['framesDecoded']} frames)")

    # Unpublish renegotiates; a refused publish rolls back; ICE restart.
    result = page.call(f"await alice.unpublish('{audio_id}'); return [alice.localTracks.length, alice.peerConnections.publish.signalingState];")
    expect(result["ok"] and result["value"] == [1, "stable"], "alice unpublished her mic with a renegotiation (back to stable)")
    unpublish = driver.execute_script("return window.mock.requests.find((r) => r.type === 'unpublish').data")
    expect(unpublish["track_id"] == audio_id and "a=inactive" in unpublish["sdp"], "the unpublish offer marks the mic's m-section inactive")
    page.wait_event("bob", "didRemoveTrack", lambda a: a[1]["track"] == audio_id)
    ok("bob got didRemoveTrack for the mic")
    result = page.call("const t = window.local.audio.clone(); await alice.publishLocalTrack(t, {desc: 'refuse-me'});")
    state = driver.execute_script("const pc = window.chs.alice.peerConnections.publish; return [pc.signalingState, pc.getTransceivers().filter((x) => !x.stopped && x.currentDirection !== 'stopped').length];")
    expect(not result["ok"] and result["code"] == 40301 and state[0] == "stable",
           f"a refused publish rejects with the server's 40301 and rolls the connection back to stable ({state})")
    result = page.call("const t = window.local.audio.clone(); return (await alice.publishLocalTrack(t, {desc: 'mic'})).id;")
    expect(result["ok"] and result["value"].startswith("TR_"), f"the next publish works ({result.get('value') or result.get('error')})")
    result = page.call("await alice._publisher.restartIce(); return alice.peerConnections.publish.signalingState;")
    expect(result["ok"] and result["value"] == "stable", "an ICE restart of the publish connection renegotiated")

    # A request the server does not answer in time rejects with timeout; the late answer is ignored.
    result = page.call("""
      mock.silent = true; alice._signal.requestTimeoutMs = 300;
      const started = performance.now();
      try { await alice.ping(); return 'answered'; } catch (e) {
        const waited = performance.now() - started;
        mock.silent = false; alice._signal.requestTimeoutMs = 10000;
        await new Promise((r) => setTimeout(r, 900));
        return [e.kind, e.code, waited >= 290 && waited < 2000, alice.connectionState, (await alice.ping()) > 0];
      }
    """)
    expect(result["ok"] and result["value"] == ["timeout", 1006, True, "connected", True],
           f"an unanswered request rejects with timeout 1006 after requestTimeoutMs; the late answer changes nothing ({result.get('value')})")

    # Leave: the other side sees it and the camera ends.
    page.call("await alice.leave();")
    left = page.wait_event("bob", "userDidLeave", lambda a: a[0] == "alice")
    ended = driver.execute_script(f"return window.chs.bob.remoteTrack('{video_id}')")
    expect(left[1] == "client_leave" and ended is None, "bob got userDidLeave(alice, client_leave) and her tracks are gone")


def main():
    reexec_in_loopback_namespace(__file__)
    driver = None
    with Server(extra_args=("--web-dir", os.path.join(ROOT, "web"))) as server:
        try:
            driver = make_driver(WAIT_SECONDS + 10)
            run(server, driver)
            print("browser SDK media (stand-in SFU): all checks passed")
            return 0
        except Exception as error:
            print(f"FAIL: {type(error).__name__}: {error}")
            if driver:
                try:
                    for uid in ("alice", "bob"):
                        print(f"--- events of {uid} ---")
                        for event in driver.execute_script(f"return (window.events || {{}})['{uid}'] || []"):
                            print(json.dumps(event)[:400])
                    print("--- mock log ---")
                    for line in driver.execute_script("return (window.mock && window.mock.log) || []"):
                        print(line)
                except Exception as e:
                    print(f"(no events: {e})")
                print("--- browser console ---")
                try:
                    for entry in driver.get_log("browser"):
                        print(entry.get("message"))
                except Exception as e:
                    print(f"(no console log: {e})")
            print("--- server log ---")
            print(server.read_log())
            return 1
        finally:
            if driver:
                driver.quit()


if __name__ == "__main__":
    sys.exit(main())
