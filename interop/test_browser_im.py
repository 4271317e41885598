#!/usr/bin/env python3
"""IM between a headless Chromium (web/srtc.js) and two Swift SDK clients (`srtc im`) on a real
srtc-server, plus the browser's speed test over the WebSocket carrier:

- the browser sends a message to the Swift echo bot and gets the echo back;
- the browser invites the bot to a call in a channel, the bot accepts, the browser hears it;
- a second Swift client invites the browser; the browser accepts and that client hears it;
- the backend's signed /server/v1/im/notify reaches the browser;
- a bad token is refused with 40106; the browser's speed test completes with a result.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import bin_path, stop_gently  # noqa: E402
from srtc_test_support import SUMMARIZE_JS, CheckFailed, Tab, expect, ok, run_browser_test, wait_until  # noqa: E402

WAIT = 20

SETUP_JS = SUMMARIZE_JS + """
const [token, done] = arguments;
window.events = [];
import('/sdk/srtc.js').then(async (srtc) => {
  window.srtc = srtc;
  const engine = new srtc.SRTCEngine();
  window.ch = engine;
  const im = await engine.enableIm(location.origin, token);
  im.onAny((name, ...args) => window.events.push({name, args: args.map(window.summarize)}));
  done({ok: true, uid: im.uid});
}).catch((e) => done({ok: false, error: String(e), code: e.code}));
"""


class Bot:
    """`srtc im` as a Swift SDK client; its JSON lines are read from its log."""

    def __init__(self, server, uid, *args):
        self.log_path = os.path.join(tempfile.mkdtemp(prefix="srtc-im-"), f"{uid}.log")
        env = dict(os.environ, SRTC_APP_ID=server.app_id, SRTC_APP_KEY=server.app_key)
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen([bin_path("srtc"), "im", "--url", server.base, "--uid", uid, "--duration", "60", *args],
                                         env=env, stdout=log, stderr=subprocess.STDOUT)

    def lines(self):
        with open(self.log_path, errors="replace") as f:
            return [line.strip() for line in f if line.strip()]

    def entries(self):
        out = []
        for line in self.lines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and "seq" in value:
                out.append(value)
        return out

    def wait(self, predicate, what):
        try:
            wait_until(lambda: predicate(self), what, WAIT, 0.1)
        except CheckFailed:
            raise CheckFailed(f"{what} not seen; log:\n" + "\n".join(self.lines()[-20:])) from None

    def stop(self):
        stop_gently(self.proc)


def run(server, driver):
    echo = Bot(server, "swiftbot", "--echo", "--accept-calls")
    echo.wait(lambda b: "connected" in b.lines(), "the Swift echo bot's login")
    status, grant = server.call("POST", "/server/v1/im/grant", {"uid": "web", "nickname": "Web"})
    expect(status == 200, "the backend got an IM token for the browser")
    driver.get(server.base + "/")
    tab = Tab(driver, driver.current_window_handle, "browser")
    setup = tab.run_async(SETUP_JS, grant["token"])
    expect(setup["ok"] and setup["uid"] == "web", f"the browser enabled IM as web ({setup.get('error', 'ok')})")

    sent = tab.call("return await ch.im.sendMessage('swiftbot', 'hello from the browser');")
    expect(sent["ok"], f"the browser sent a message ({sent.get('error', 'ok')})")
    echoed = tab.wait_event("imDidReceive", lambda a: a[0].get("content") == "echo: hello from the browser")
    expect(echoed[0]["from"] == "swiftbot" and echoed[0]["kind"] == "message", "the Swift bot's echo reached the browser")
    echo.wait(lambda b: any(e["content"] == "hello from the browser" and e["from"] == "web" for e in b.entries()),
              "the browser's message at the Swift bot")
    ok("the Swift SDK client received the browser's message")

    invite = tab.call("return await ch.im.invite('swiftbot', {channel: 'call-web', content: 'video'});")
    expect(invite["ok"], f"the browser invited the bot ({invite.get('error', 'ok')})")
    call_id = invite["value"]["callId"]
    accepted = tab.wait_event("imDidReceive", lambda a: a[0].get("kind") == "call_accepted" and a[0].get("callId") == call_id)
    expect(accepted[0]["from"] == "swiftbot" and accepted[0]["channel"] == "call-web", "the bot accepted the browser's call in call-web")

    caller = Bot(server, "swiftcaller", "--invite", "web", "--channel", "call-back")
    ring = tab.wait_event("imDidReceive", lambda a: a[0].get("kind") == "call_invite" and a[0].get("from") == "swiftcaller")
    answer = tab.call(f"return await ch.im.accept('{ring[0]['callId']}', 'on my way');")
    expect(answer["ok"], "the browser accepted the Swift client's call")
    caller.wait(lambda b: any(e["kind"] == "call_accepted" and e["from"] == "web" and e.get("content") == "on my way" for e in b.entries()),
                "the browser's answer at the calling Swift client")
    ok("a second Swift SDK client's call was answered by the browser")

    status, body = server.call("POST", "/server/v1/im/notify", {"uids": ["web", "swiftbot"], "title": "Maintenance", "content": "at 22:00"})
    expect(status == 200 and body["delivered"] == 2, "the backend's notification was stored for two uids")
    note = tab.wait_event("imDidReceive", lambda a: a[0].get("kind") == "notification")
    expect(note[0]["title"] == "Maintenance" and note[0]["content"] == "at 22:00", "the notification reached the browser")
    seqs = [e["args"][0]["seq"] for e in tab.events() if e["name"] == "imDidReceive"]
    expect(seqs == list(range(1, len(seqs) + 1)), f"the browser got every entry once, in order ({seqs})")

    refused = tab.call("""
      const other = new srtc.SRTCEngine();
      try { await other.enableIm(location.origin, 'a.b.c'); return 'accepted'; } catch (e) { return e.code; }
    """)
    expect(refused["ok"] and refused["value"] == 40106, f"a bad IM token is refused with 40106 ({refused})")

    status, speed = server.call("POST", "/server/v1/speedtest/grant", {"uid": "web"})
    expect(status == 200, "the backend got a speed-test token")
    result = tab.call(f"""
      const progress = [];
      ch.on('speedTestDidProgress', (p) => progress.push(p.phase));
      const r = await ch.startSpeedTest({{url: location.origin, token: '{speed['token']}', duration: 2,
                                          expectedUplinkBitrate: 2000000, expectedDownlinkBitrate: 2000000}});
      return {{r, progress}};
    """)
    expect(result["ok"], f"the browser's speed test ran ({result.get('error', 'ok')})")
    r = result["value"]["r"]
    expect(r["uplink"]["bandwidth"] > 500000 and r["downlink"]["bandwidth"] > 500000 and r["rttMs"] > 0,
           f"it measured both directions and the RTT ({r})")
    expect("uplink" in result["value"]["progress"] and "downlink" in result["value"]["progress"], "with progress events")
    for bot in (echo, caller):
        bot.stop()


def dump(driver):
    tab = Tab(driver, driver.current_window_handle, "browser")
    for event in tab.events()[-30:]:
        print(str(event)[:300])
    for line in tab.console()[-40:]:
        print(line)


def main():
    return run_browser_test("browser IM with Swift SDK clients", run, wait_seconds=WAIT, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
