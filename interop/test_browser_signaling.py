#!/usr/bin/env python3
"""Web SDK signaling in a real browser against a real srtc-server: headless Chromium loads the
demo page the server serves at `/` and the SDK from `/sdk/srtc.js`. Tab A drives the demo page's
own form; tab B uses the SDK's API directly. Tokens come from signed `POST /server/v1/channel/grant`
calls (Python's standard library), as a customer's backend would make them.

Checked: the page and SDK are served with their content types; both join and see each other
(`userDidJoin` on join and for the users already there); custom messages both ways (page chat and
SDK, to one uid and to everyone) and from the backend; profile updates; channel metadata updates;
a dropped WebSocket is resumed with the same session (`channelIsReconnecting`, `didReconnect`)
while the other side sees nothing; server refusals arrive as `SRTCError` with the server's code;
a bad token is refused with 40106; leave (`userDidLeave` with `client_leave`) and kick
(`didDisconnect` with `kicked`).

Run by `make test` (after `swift build`). Every wait is bounded; on failure it prints the events,
the browser console of each tab and the server log.
"""
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import SUMMARIZE_JS, Tab, expect, ok, run_browser_test  # noqa: E402

WAIT_SECONDS = 15
CHANNEL = "webroom"


RECORDER_JS = SUMMARIZE_JS + """
window.events = window.events || [];
window.record = (ch) => ch.onAny((name, ...args) => window.events.push({name, args: args.map(window.summarize)}));
"""

# Tab B: a channel made with the SDK's own API.
SDK_JOIN_JS = RECORDER_JS + """
const [token, nickname, done] = arguments;
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  const ch = new srtc.SRTCChannel({logLevel: 'debug', logger: (level, m) => console.log('[srtc ' + level + '] ' + m)});
  window.ch = ch;
  window.record(ch);
  const info = await ch.join(location.origin, token, {nickname});
  done({ok: true, info, sessionId: ch.sessionId, uid: ch.uid, users: ch.users.map((u) => u.uid)});
}).catch((e) => done({ok: false, error: String(e), code: e.code}));
"""

Tab.WAIT_SECONDS = WAIT_SECONDS


def grant(server, uid, channel=CHANNEL, **extra):
    return server.channel_token(channel, uid, **extra)


def check_static(server):
    with urllib.request.urlopen(server.base + "/", timeout=5) as r:
        page = r.read().decode()
        expect(r.status == 200 and r.headers["Content-Type"] == "text/html; charset=utf-8" and "/sdk/demo.js" in page,
               "GET / serves the demo page (text/html)")
    with urllib.request.urlopen(server.base + "/sdk/srtc.js", timeout=5) as r:
        expect(r.headers["Content-Type"] == "text/javascript; charset=utf-8" and "export class SRTCEngine" in r.read().decode(),
               "GET /sdk/srtc.js serves the SDK (text/javascript)")


PURE_JS = """
const done = arguments[0];
Promise.all([import('/sdk/srtc.js'), import('/sdk/srtc/sdp.js'), import('/sdk/srtc/models.js')]).then(([srtc, sdp, models]) => {
  const urls = ['http://h:7880', 'https://rtc.example.com/', 'ws://h:7880', 'wss://h/custom/path', 'http://h:7880/base/?x=1']
    .map((u) => srtc.signalingURL(u));
  let invalid = null;
  try { srtc.signalingURL('ftp://h'); } catch (e) { invalid = {kind: e.kind, code: e.code}; }
  const offer = 'v=0\\r\\na=group:BUNDLE 0 1\\r\\nm=audio 9 UDP/TLS/RTP/SAVPF 111\\r\\na=mid:0\\r\\na=sendonly\\r\\n' +
    'a=msid:alice TR_a\\r\\nm=video 9 UDP/TLS/RTP/SAVPF 96\\r\\na=mid:1\\r\\na=inactive\\r\\na=rid:h send\\r\\na=simulcast:send h;l\\r\\n';
  const sections = sdp.parseMediaSections(offer);
  done({urls, invalid, sections, camel: models.camelize({user_count: 2, joined_at: 1, tracks: [{max_bitrate: 5}], custom: '{"a_b":1}'})});
}).catch((e) => done({error: String(e)}));
"""


def check_pure_functions(tab):
    result = tab.run_async(PURE_JS)
    expect(result.get("urls") == ["ws://h:7880/rtc/v1/ws", "wss://rtc.example.com/rtc/v1/ws", "ws://h:7880/rtc/v1/ws",
                                  "wss://h/custom/path", "ws://h:7880/base/rtc/v1/ws?x=1"],
           f"signalingURL maps http(s)/ws(s) URLs to the signaling path ({result.get('urls') or result})")
    expect(result["invalid"] == {"kind": "invalidURL", "code": 1001}, "signalingURL refuses ftp:// with invalidURL 1001")
    sections = [(s["mid"], s["kind"], s["direction"], s["msid"], [r["id"] for r in s["rids"]]) for s in result["sections"]]
    expect(sections == [("0", "audio", "sendonly", {"stream": "alice", "track": "TR_a"}, []), ("1", "video", "inactive", None, ["h"])],
           "parseMediaSections reads mid, kind, direction, msid and rids")
    expect(result["camel"] == {"userCount": 2, "joinedAt": 1, "tracks": [{"maxBitrate": 5}], "custom": '{"a_b":1}'},
           "camelize converts keys deeply and leaves string values alone")


def run(server, driver):
    check_static(server)
    bob_token, alice_token = grant(server, "bob"), grant(server, "alice")

    driver.get(server.base + "/")
    tab_b = Tab(driver, driver.current_window_handle, "B (SDK)")
    driver.switch_to.new_window("window")
    driver.get(server.base + "/")
    tab_a = Tab(driver, driver.current_window_handle, "A (demo page)")

    check_pure_functions(tab_b)

    # B joins first with the SDK's API.
    joined = tab_b.run_async(SDK_JOIN_JS, bob_token, "Bob")
    expect(joined["ok"] and joined["uid"] == "bob" and joined["info"]["channel"] == CHANNEL
           and joined["sessionId"].startswith("SE_") and joined["users"] == [],
           f"B joined {CHANNEL} through /sdk/srtc.js as bob (session {joined.get('sessionId')})")
    tab_b.wait_event("didJoinSucceed", lambda a: a[0]["channel"] == CHANNEL)
    ok("B got didJoinSucceed with the ChannelInfo")

    # A joins through the demo page's form.
    from selenium.webdriver.common.by import By
    tab_a.run(RECORDER_JS + "window.record(window.srtcDemo.channel);")
    driver.switch_to.window(tab_a.handle)
    expect(driver.find_element(By.ID, "server-url").get_attribute("value") == server.base,
           "the demo page proposes its own origin as server URL")
    for field, value in (("channel-name", CHANNEL), ("uid", "alice"), ("nickname", "Alice")):
        element = driver.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    expect(driver.find_element(By.ID, "grant-command").text == f"srtc grant --channel {CHANNEL} --uid alice",
           "the demo page shows the grant command for its channel and uid")
    driver.find_element(By.ID, "token").send_keys(alice_token)
    driver.find_element(By.ID, "join").click()
    tab_a.wait_true("return window.srtcDemo.channel.connectionState === 'connected'", "demo join")
    ok("A joined through the demo page's form")
    tab_a.wait_true("return document.getElementById('join').disabled && !document.getElementById('leave').disabled"
                    " && document.getElementById('state').textContent === 'joined %s as alice'" % CHANNEL, "demo buttons after join")
    ok("the demo page shows 'joined %s as alice', Join disabled, Leave enabled" % CHANNEL)
    seen = tab_a.wait_event("userDidJoin", lambda a: a[0]["uid"] == "bob")
    expect(seen[0]["nickname"] == "Bob", "A got userDidJoin for bob, who was already there (nickname Bob)")
    tab_a.wait_true("return document.querySelectorAll('#remotes .tile').length === 1", "bob's tile")
    ok("the demo page shows a tile for bob")
    seen = tab_b.wait_event("userDidJoin", lambda a: a[0]["uid"] == "alice")
    expect(seen[0]["nickname"] == "Alice" and isinstance(seen[0]["joinedAt"], int), "B got userDidJoin for alice (camelCase UserInfo)")

    # Messages: page chat to everyone, SDK to one uid, the backend to everyone.
    driver.switch_to.window(tab_a.handle)
    driver.find_element(By.ID, "chat-input").send_keys("hello from the demo")
    driver.find_element(By.ID, "chat-send").click()
    message = tab_b.wait_event("didReceiveCustomMessage", lambda a: a[0]["from"] == "alice")[0]
    expect(json.loads(message["data"]) == {"chat": "hello from the demo"} and message["timestamp"] > 0,
           "B received A's chat as a custom message from alice")
    result = tab_b.call("await ch.sendCustomMessage('hi alice', ['alice']); return ch.uid;")
    expect(result["ok"], "B's sendCustomMessage to ['alice'] resolved")
    tab_a.wait_true("return [...document.querySelectorAll('#messages li')].some((li) => li.textContent === 'bob: hi alice')",
                    "bob's message in the chat list")
    message = tab_a.wait_event("didReceiveCustomMessage", lambda a: a[0]["from"] == "bob")[0]
    expect(message["to"] == ["alice"] and message["data"] == "hi alice", "A received bob's message addressed to ['alice'] and shows it")
    status, body = server.call("POST", "/server/v1/channel/message", {"channel": CHANNEL, "data": "from the backend"})
    expect(status == 200, f"the backend sent a channel message ({body})")
    message = tab_b.wait_event("didReceiveCustomMessage", lambda a: a[0]["data"] == "from the backend")[0]
    expect(message["from"] is None, "B received the backend's message with from = null")

    # Profile and channel info.
    result = tab_b.call("await ch.updateProfile({nickname: 'Bobby', custom: '{\"role\":\"host\"}'});")
    expect(result["ok"], "B's updateProfile resolved")
    me = tab_b.wait_event("meDidUpdate", lambda a: a[0]["nickname"] == "Bobby")[0]
    expect(me["custom"] == '{"role":"host"}', "B got meDidUpdate with its new nickname and custom")
    tab_a.wait_event("userDidUpdate", lambda a: a[0]["uid"] == "bob" and a[0]["nickname"] == "Bobby")
    tab_a.wait_true("return document.querySelector('#remotes .tile .name').textContent === 'Bobby (bob)'", "renamed tile")
    ok("A got userDidUpdate and the demo tile shows 'Bobby (bob)'")
    status, _ = server.call("POST", "/server/v1/channel/update", {"channel": CHANNEL, "metadata": "topic: tests"})
    info = tab_b.wait_event("didUpdateInfo", lambda a: a[0].get("metadata") == "topic: tests")[0]
    expect(status == 200 and info["channel"] == CHANNEL, "B got didUpdateInfo with the metadata the backend set")

    # Server refusals reach the caller as SRTCError with the server's code.
    result = tab_b.call("await ch.sendCustomMessage('x'.repeat(17 * 1024));")
    expect(not result["ok"] and result["kind"] == "server" and result["code"] == 41301,
           f"a 17 KiB message is refused with payload_too_large 41301 ({result.get('error')})")
    result = tab_b.call("await ch.mute('TR_nope');")
    expect(not result["ok"] and result["kind"] == "wrongState", "mute of an unknown local track is refused by the SDK (wrongState)")
    result = tab_b.call("await ch._request('subscribe', {track_id: 'TR_nope'});")
    expect(not result["ok"] and result["code"] == 40401, "subscribe to an unknown track id is refused with not_found 40401")

    # A dropped WebSocket is resumed with the same session; A sees nothing.
    session = joined["sessionId"]
    a_mark, b_mark = len(tab_a.events()), len(tab_b.events())
    tab_b.run("window.ch._signal.close(4001, 'test: connection dropped');")
    tab_b.wait_event("channelIsReconnecting", after=b_mark)
    tab_b.wait_event("didReconnect", lambda a: a[0]["channel"] == CHANNEL, after=b_mark)
    expect(tab_b.run("return window.ch.sessionId") == session and tab_b.run("return window.ch.connectionState") == "connected",
           f"B resumed session {session} after a dropped WebSocket (channelIsReconnecting, didReconnect)")
    result = tab_b.call("return await ch.ping();")
    expect(result["ok"] and result["value"] > 1_700_000_000_000, "B's ping works on the new connection")
    driver.switch_to.window(tab_a.handle)
    driver.find_element(By.ID, "chat-input").send_keys("still there?")
    driver.find_element(By.ID, "chat-send").click()
    tab_b.wait_event("didReceiveCustomMessage", lambda a: json.loads(a[0]["data"]).get("chat") == "still there?", after=b_mark)
    ok("B receives A's messages after the resume")
    names = [e["name"] for e in tab_a.events()[a_mark:]]
    expect("userDidLeave" not in names and "userDidJoin" not in names, "A saw no leave or join during B's reconnection")

    # A bad token: the join is refused with invalid_token; the same channel object can join after.
    result = tab_b.call("window.c2 = new srtc.SRTCChannel(); await c2.join(location.origin, 'not.a.token');")
    expect(not result["ok"] and result["code"] == 40106, f"a bad token is refused with invalid_token 40106 ({result.get('error')})")
    expect(tab_b.run("return window.c2.connectionState") == "disconnected", "after the refused join the channel is disconnected again")
    carol = grant(server, "carol", channel="otherroom")
    result = tab_b.call(f"const info = await c2.join(location.origin, '{carol}'); await c2.leave(); return [info.channel, c2.connectionState];")
    expect(result["ok"] and result["value"] == ["otherroom", "disconnected"], "the same channel object then joins with a valid token (and leaves)")

    # A leaves with the demo page's button; B sees it with client_leave.
    driver.switch_to.window(tab_a.handle)
    driver.find_element(By.ID, "leave").click()
    left = tab_b.wait_event("userDidLeave", lambda a: a[0] == "alice")
    expect(left[1] == "client_leave", "B got userDidLeave(alice, client_leave) after A clicked Leave")
    tab_a.wait_event("didDisconnect", lambda a: a[0] == "client_leave")
    ok("A got didDisconnect(client_leave)")
    expect(tab_b.run("return window.ch.users.length") == 0, "B's user list is empty again")

    # The backend kicks B: didDisconnect(kicked), and the channel is left for good.
    k_mark = len(tab_b.events())
    status, body = server.call("POST", "/server/v1/channel/kick", {"channel": CHANNEL, "uid": "bob"})
    expect(status == 200, f"the backend kicked bob ({body})")
    reason = tab_b.wait_event("didDisconnect", lambda a: a[0] == "kicked", after=k_mark)
    time.sleep(1.0)  # no reconnection may follow a kick
    expect(tab_b.run("return window.ch.connectionState") == "disconnected"
           and "channelIsReconnecting" not in [e["name"] for e in tab_b.events()[k_mark:]],
           f"B got didDisconnect({reason[0]}) and did not try to reconnect")


def dump(driver):
    for handle, name in zip(driver.window_handles, ("B (SDK)", "A (demo page)")):
        tab = Tab(driver, handle, name)
        print(f"--- events of {name} ---")
        for event in tab.events():
            print(json.dumps(event)[:400])
        print(f"--- browser console of {name} ---")
        for line in tab.console():
            print(line)


def main():
    return run_browser_test("browser signaling", run, wait_seconds=WAIT_SECONDS, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
