#!/usr/bin/env python3
"""The meeting app `/meet/` and the SMeeting web SDK with three Chromium participants.

A real srtc-server with the demo sign-in (`--demo-auth loopback`); three windows of headless
Chromium with a fake camera and microphone sign in through the app's pre-join screen:

- the host schedules a meeting on the home screen (listed; `updateRoom` / `detailRoom` change and
  read it; the list's Cancel cancels it), then starts a meeting with a password and a waiting room; the others enter by room number,
  a wrong password first (the form shows "Wrong password."), then wait: the host's admission list
  names who waits; Bob is admitted, Carol is sent away (and told), enters again and is admitted with
  "Admit all";
- everyone sees everyone: every remote tile's video decodes (`getStats()` inbound-rtp
  `framesDecoded` of the tile's own track rises), and tiles ask for the layer their size needs;
- a member raises a hand and the host sees it; chat arrives;
- the host mutes all from the participants panel and the members' audio stops arriving at the
  host (inbound audio `packetsReceived` stops growing: waited on until it held still 2 s);
- a member shares its screen (Chromium's fake display capture) and the others see the share tile
  decode; then presents a whiteboard (the state only): the others see its tile, no media flows;
- the host asks a member to unmute (accepted: its audio flows again);
- sign-in and roll call: the host starts a sign-in, Bob signs in and Carol does not (the host's
  count and the stored results say so); the host calls Carol, who answers;
- breakout rooms: the host creates two, puts Carol in Room 1 and opens them: Carol moves to the
  room's channel and sees only herself, asks for help (the host sees the room marked), gets the
  host's broadcast; the host visits Room 1 and decodes Carol's video there, goes back and decodes
  Bob; closing the rooms brings Carol back, decoded by the host again;
- the host makes Bob co-host (he gets the room controls);
- training mode: Carol's camera closes and may not reopen until the host approves her raised hand
  (she becomes presenter; the host decodes her camera again);
- Bob publishes a canvas with the SDK's view capture: the host decodes it as his screen; stopping it
  removes the track;
- the host removes a member, who is told who did it;
- a member's meeting connection drops: the reconnecting banner shows, the session resumes: a chat
  sent meanwhile arrives, the host never saw the member leave, its camera track is the same one and
  the host keeps decoding it; a dropped media connection alone also shows the banner and resumes;
- the connection-quality dots show the SDK's levels: Bob's media goes silent and the host's dot on
  his tile turns to lost, as the last quality event said;
- the host ends the meeting and the member is told.

Screenshots of the pre-join, home, waiting, grid, speaker, participants and breakout views (and
the participants panel at phone width) go to the output folder
(`SRTC_TEST_OUTPUT`, default `.build/test-output/test_browser_meet/`), and axe-core (from the
PyPI package `selenium-axe-python`) finds no violation (of any impact) on each screen.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT  # noqa: E402
from srtc_test_support import CheckFailed, Tab, dump_browsers, expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402

WAIT_SECONDS = 25
OUTPUT = os.environ.get("SRTC_TEST_OUTPUT") or os.path.join(ROOT, ".build", "test-output", "test_browser_meet")

# Per-tile decoded frames: each remote tile's <video> shows one received track; its inbound-rtp
# entry is the one whose trackIdentifier is that track's id.
TILES_JS = """
const done = arguments[0];
(async () => {
  const m = window.meetApp.meeting;
  const stats = m.channel ? await m.channel.getStats() : {subscribe: null};
  const frames = {};
  // Why a tile does not decode, for a failure's message: packets received, key frames asked for.
  const receipt = {};
  // Audio received so far: the most each SSRC ever counted (a stream's statistics disappear once
  // its m-section goes inactive, so a plain sum would drop).
  window.audioMax ??= new Map();
  stats.subscribe?.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video') {
      frames[r.trackIdentifier] = r.framesDecoded || 0;
      receipt[r.trackIdentifier] = {packets: r.packetsReceived || 0, plis: r.pliCount || 0, nacks: r.nackCount || 0};
    }
    if (r.type === 'inbound-rtp' && r.kind === 'audio') window.audioMax.set(r.ssrc, Math.max(window.audioMax.get(r.ssrc) ?? 0, r.packetsReceived || 0));
  });
  const audioPackets = [...window.audioMax.values()].reduce((a, b) => a + b, 0);
  const tiles = [...document.querySelectorAll('#stage .tile')].map((t) => {
    const v = t.querySelector('video');
    const track = v.srcObject ? v.srcObject.getVideoTracks()[0] : null;
    const remote = m.channel?.remoteTracks.find((r) => r.mediaStreamTrack === track);
    return {key: t.dataset.key, uid: t.dataset.uid, local: t.classList.contains('local'), share: t.classList.contains('screen-share'),
            frames: track ? (frames[track.id] ?? 0) : 0, height: v.clientHeight, layer: remote ? remote.requestedLayer : null,
            subscribed: remote ? remote.isSubscribed : null, receipt: track ? (receipt[track.id] ?? null) : null};
  });
  done({tiles, audioPackets});
})().catch((e) => done({error: String(e)}));
"""


# What a publisher sends: each outbound video stream of its publish connection (a share tile that
# does not decode then says whether the sharer encoded and sent, and what limited it).
OUTBOUND_JS = """
const done = arguments[0];
(async () => {
  const stats = await window.meetApp.meeting.channel.getStats();
  const out = [];
  stats.publish?.forEach((r) => {
    if (r.type === 'outbound-rtp' && r.kind === 'video') {
      out.push({mid: r.mid, rid: r.rid, ssrc: r.ssrc, active: r.active, packets: r.packetsSent, frames: r.framesEncoded,
                keyFrames: r.keyFramesEncoded, plis: r.pliCount, limited: r.qualityLimitationReason, size: [r.frameWidth, r.frameHeight]});
    }
  });
  done(out);
})().catch((e) => done({error: String(e)}));
"""


def share_diagnostics(server, sharer):
    """The sharer's outbound video and the server's media counters, for a share that does not decode."""
    import urllib.request
    try:
        with urllib.request.urlopen(server.base + "/metrics", timeout=5) as r:
            metrics = [line for line in r.read().decode().splitlines() if line.startswith("srtc_media") and not line.startswith("#")]
    except Exception as error:  # the server may be gone
        metrics = [f"(no metrics: {error})"]
    return f"{sharer.name} sends {json.dumps(sharer.run_async(OUTBOUND_JS))}; server: {'; '.join(metrics)}"


# Records that the reconnecting banner was shown, however briefly.
BANNER_LATCH_JS = """
const banner = document.getElementById('banner');
window.bannerSeen = false;
window.bannerObserver?.disconnect();
window.bannerObserver = new MutationObserver(() => {
  if (!banner.hidden && banner.textContent.includes('Reconnecting')) window.bannerSeen = true;
});
window.bannerObserver.observe(banner, {attributes: true, childList: true, characterData: true, subtree: true});
"""


class Participant(Tab):
    """One browser window running the app."""

    WAIT_SECONDS = WAIT_SECONDS

    def call_sdk(self, body):
        """Runs an async function body with `m`, the app's SMeetingEngine; returns its value or fails."""
        result = self.run_async("""const [body, done] = arguments;
          new Function('m', 'return (async () => {' + body + '})()')(window.meetApp.meeting)
            .then((value) => done({ok: true, value}), (e) => done({ok: false, error: e.message}));""", body)
        if not result["ok"]:
            raise CheckFailed(f"{self.name}: {result['error']}")
        return result["value"]

    def find(self, css):
        from selenium.webdriver.common.by import By
        self.focus()
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def click(self, css):
        self.find(css).click()

    def type(self, css, text):
        element = self.find(css)
        element.clear()
        element.send_keys(text)

    def text(self, css):
        return self.run("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css)

    def tiles(self):
        result = self.run_async(TILES_JS)
        if "error" in result:
            raise CheckFailed(f"{self.name}: stats failed: {result['error']}")
        return result

    def wait_tiles(self, predicate, what, timeout=WAIT_SECONDS):
        return self.wait_value(self.tiles, predicate, what, timeout, 0.3)

    def screenshot(self, name):
        self.focus()
        path = os.path.join(OUTPUT, f"{name}.png")
        self.driver.save_screenshot(path)
        ok(f"screenshot {os.path.relpath(path, ROOT)}")

    def accessibility(self, screen):
        """axe-core on the page as it is: no violation."""
        from selenium_axe_python import Axe
        self.focus()
        axe = Axe(self.driver)
        axe.inject()
        results = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(done, (e) => done({error: String(e)}));")
        if "error" in results:
            raise CheckFailed(f"axe failed on {screen}: {results['error']}")
        with open(os.path.join(OUTPUT, f"axe-{screen}.json"), "w") as f:
            json.dump(results["violations"], f, indent=1)
        # Every finding fails, minor ones too (the issue asks for no serious one; there is none of any kind).
        bad = results["violations"]
        if bad:
            raise CheckFailed(f"axe: {len(bad)} violation(s) on {screen}:\n" + Axe.report(bad))
        ok(f"axe-core {results['testEngine']['version']}: no violation on the {screen} screen")


def sign_in(p, base, name):
    p.focus()
    p.driver.get(base + "/meet/?quality=low")
    p.wait_true("return !document.getElementById('prejoin').hidden && document.getElementById('camera-select').options.length > 0", "the pre-join screen")
    p.type("#display-name", name)
    p.click("#prejoin-continue")
    p.wait_true("return !document.getElementById('home').hidden", "the home screen after sign-in")
    ok(f"{p.name} signed in through the demo sign-in as {p.run('return window.meetApp.meeting.currentUserId')}")


def enter_by_number(p, room_no, password):
    p.type("#join-room", room_no)
    p.type("#join-password", password)
    p.click("#join-button")


def uid_of(p, nickname):
    return p.run("return window.meetApp.meeting.getUsersInfoList().find((u) => u.nickname === arguments[0])?.uid", nickname)


def remote_tiles_decode(p, count, what):
    """Every remote camera tile (and share tile) decodes: its frames rise between two samples."""
    first = p.wait_tiles(lambda s: len([t for t in s["tiles"] if not t["local"]]) == count
                         and all(t["frames"] > 0 for t in s["tiles"] if not t["local"]), f"{count} decoding remote tiles ({what})")
    before = {t["key"]: t["frames"] for t in first["tiles"] if not t["local"]}
    after = p.wait_tiles(lambda s: all(t["frames"] > before.get(t["key"], 0) for t in s["tiles"] if not t["local"] and t["key"] in before),
                         f"frames rising in every remote tile ({what})")
    return after


def wait_audio_silent(p, what, quiet_seconds=2.0):
    """Waits until no audio packet reached `p` for `quiet_seconds` (packets in flight drain
    first); fails if audio keeps arriving. Returns the packet count."""
    deadline = time.time() + WAIT_SECONDS
    count, since = p.tiles()["audioPackets"], time.time()
    while time.time() - since < quiet_seconds:
        if time.time() > deadline:
            raise CheckFailed(f"{what}: audio still reaches {p.name} after {WAIT_SECONDS} s ({count} packets)")
        time.sleep(0.3)
        now = p.tiles()["audioPackets"]
        if now != count:
            count, since = now, time.time()
    ok(f"{what} no more audio reaches {p.name} (still {count} packets after {quiet_seconds} s)")
    return count


# The quality level a tile's dot shows (its class and label) and the SDK's level for its member.
DOT_JS = """
const m = window.meetApp.meeting, uid = arguments[0];
const dot = document.querySelector(`#stage .tile[data-key="${uid}"] .quality`);
return dot && {shown: dot.className.replace('quality', '').trim(), label: dot.getAttribute('aria-label'), sdk: m.getConnectionQuality(uid)};
"""


def open_windows(driver):
    """The host's window and Bob's and Carol's, each 1280×800."""
    driver.set_window_size(1280, 800)
    host = Participant(driver, driver.current_window_handle, "Host")
    members = []
    for name in ("Bob", "Carol"):
        driver.switch_to.new_window("window")
        driver.set_window_size(1280, 800)
        members.append(Participant(driver, driver.current_window_handle, name))
    return [host, *members]


def run(server, driver):
    os.makedirs(OUTPUT, exist_ok=True)
    host, bob, carol = open_windows(driver)

    # Pre-join: name, device pickers, a live preview and a moving level meter.
    host.focus()
    driver.get(server.base + "/meet/?quality=low")
    host.wait_true("return document.getElementById('camera-select').options.length > 0 && document.getElementById('preview-video').videoWidth > 0",
                   "the camera preview")
    host.wait_true("return Number(document.getElementById('level-meter').getAttribute('aria-valuenow')) > 0", "the level meter moving")
    ok("pre-join shows the camera preview and the microphone level")
    host.screenshot("prejoin")
    host.accessibility("prejoin")
    host.type("#display-name", "Hana Host")
    host.click("#prejoin-continue")
    host.wait_true("return !document.getElementById('home').hidden", "the home screen")
    host.screenshot("home")
    host.accessibility("home")

    # Scheduled meetings: the home form schedules one (tomorrow), the list shows it; the SDK's
    # updateRoom and detailRoom change and read it; the list's Cancel cancels it.
    host.type("#schedule-title", "Planning")
    host.run("const t = new Date(Date.now() + 86400000); t.setSeconds(0, 0);"
             " document.getElementById('schedule-time').value = new Date(t - t.getTimezoneOffset() * 60000).toISOString().slice(0, 16);")
    host.click("#schedule-form button[type=submit]")
    host.wait_true("return [...document.querySelectorAll('#scheduled-list strong')].some((n) => n.textContent === 'Planning')", "the scheduled meeting listed")
    planned = host.call_sdk("const page = await m.attendeeRoom(); const p = page.list.find((x) => x.title === 'Planning');"
                            " await m.updateRoom(p.meetingId, {title: 'Planning 2', planDur: 45});"
                            " const d = await m.detailRoom({roomNo: p.roomNo}); return [p.meetingId, d.title, d.planDur, d.status, d.hostUid === m.currentUserId];")
    expect(planned[1:] == ["Planning 2", 45, "scheduled", True], f"updateRoom changed the scheduled meeting and detailRoom by room number reads it back ({planned})")
    host.click("[aria-label='Cancel Planning']")
    host.wait_true("return ![...document.querySelectorAll('#scheduled-list strong')].some((n) => n.textContent.startsWith('Planning'))", "the cancelled meeting gone from the list")
    status = host.call_sdk(f"return (await m.detailRoom({{meetingId: '{planned[0]}'}})).status;")
    expect(status == "cancelled", f"the list's Cancel cancelled the scheduled meeting ({status})")

    # The host starts a meeting with a password.
    host.type("#start-title-input", "Design review")
    host.type("#start-password", "2468")
    host.click("#start-waiting")
    host.click("#start-button")
    host.wait_true("return !document.getElementById('meeting').hidden && document.getElementById('room-no').textContent.length > 0", "the meeting screen")
    room_no = host.text("#room-no").replace(" ", "")
    host.run("window.qualityEvents = []; window.meetApp.meeting.addEventListener('connectionQualityDidChange',"
             " (e) => qualityEvents.push([e.detail.uid, e.detail.quality]));")
    expect(len(room_no) == 9 and room_no.isdigit(), f"the host is in meeting {room_no} (shown as {host.text('#room-no')!r})")

    # The others enter by room number: a wrong password first.
    sign_in(bob, server.base, "Bob")
    enter_by_number(bob, room_no, "1111")
    bob.wait_true("return document.getElementById('join-error').textContent.includes('Wrong password')", "the wrong-password error")
    expect(bob.run("return document.getElementById('meeting').hidden"), "Bob: a wrong password is shown as an error and Bob stays outside")
    # The waiting room: the host's admission list names who waits; admitted, Bob is in.
    host.click("#btn-people")
    enter_by_number(bob, room_no, "2468")
    bob.wait_true("return !document.getElementById('waiting').hidden && window.meetApp.meeting.isInWaitingRoom", "Bob's waiting screen")
    bob.screenshot("waiting")
    bob.accessibility("waiting")
    bob_uid = bob.run("return window.meetApp.meeting.currentUserId")
    host.wait_true(f"return !!document.querySelector('#waiting-list li[data-uid=\"{bob_uid}\"]')", "Bob in the host's waiting list")
    waiting = host.run("return [...document.querySelectorAll('#waiting-list li .name')].map((n) => n.textContent)")
    expect(waiting == ["Bob"] and not host.run(f"return window.meetApp.meeting.getUsersInfo().has('{bob_uid}')"),
           f"the host's admission list shows who waits ({waiting}); Bob is not in the meeting yet")
    host.click(f'[data-action="admit:{bob_uid}"]')
    bob.wait_true("return !document.getElementById('meeting').hidden && window.meetApp.meeting.isInRoom", "Bob admitted into the meeting")
    host.wait_true(f"return window.meetApp.meeting.getUsersInfo().has('{bob_uid}') && !document.querySelector('#waiting-list li')", "Bob in the host's meeting")
    ok("the host admitted Bob from the waiting room and Bob is in the meeting")

    # Carol is sent away first (and told), then admitted with "Admit all".
    sign_in(carol, server.base, "Carol")
    enter_by_number(carol, room_no, "2468")
    carol.wait_true("return window.meetApp.meeting.isInWaitingRoom", "Carol waiting")
    carol_uid = carol.run("return window.meetApp.meeting.currentUserId")
    host.wait_true(f"return !!document.querySelector('[data-action=\"deny:{carol_uid}\"]')", "Carol in the host's waiting list")
    host.click(f'[data-action="deny:{carol_uid}"]')
    carol.wait_true("return !document.getElementById('home').hidden", "Carol sent back home")
    notice = carol.text("#home-notice")
    expect("did not let you in" in notice and not carol.run("return window.meetApp.meeting.isInWaitingRoom"),
           f"Carol, sent away from the waiting room, is told: {notice!r}")
    enter_by_number(carol, room_no, "2468")
    host.wait_true(f"return !!document.querySelector('#waiting-list li[data-uid=\"{carol_uid}\"]')", "Carol waiting again")
    host.click("#admit-all")
    carol.wait_true("return !document.getElementById('meeting').hidden && window.meetApp.meeting.isInRoom", "Carol in the meeting")
    host.click("#btn-people")
    ok("Carol entered again and the host admitted everyone waiting")

    # Everyone sees everyone.
    for p in (host, bob, carol):
        stats = remote_tiles_decode(p, 2, "grid")
        layers = {t["uid"]: t["layer"] for t in stats["tiles"] if not t["local"]}
        ok(f"{p.name} decodes both others' video in their tiles (tile layers {layers})")
    grid = host.tiles()
    # The small layer of a 640×360 camera is 90 pixels high: taller tiles need camera_big.
    remote = [t for t in grid["tiles"] if not t["local"]]
    expect(all(t["height"] > 1.5 * 90 and t["layer"] == "camera_big" for t in remote),
           f"grid tiles taller than 1.5× the small layer ask for camera_big ({[(t['height'], t['layer']) for t in remote]})")
    for uid in (bob_uid, carol_uid):
        dot = host.run(DOT_JS, uid)
        expect(dot and dot["shown"] == dot["sdk"] and dot["label"] == f"connection quality {dot['sdk']}",
               f"the host's quality dot on {uid}'s tile shows the SDK's level ({dot})")
    host.screenshot("grid")
    host.accessibility("meeting-grid")

    expect((uid_of(host, "Bob"), uid_of(host, "Carol")) == (bob_uid, carol_uid), "the host's member list has Bob and Carol")

    # A raised hand reaches the host (Bob uses the keyboard shortcut H).
    from selenium.webdriver.common.action_chains import ActionChains
    bob.focus()
    bob.run("document.activeElement?.blur()")
    ActionChains(driver).send_keys("h").perform()
    host.wait_true(f"return !document.querySelector('.tile[data-key=\"{bob_uid}\"] .hand').hidden", "Bob's hand on his tile")
    ok("Bob raised his hand and the host sees it on Bob's tile")

    # Chat.
    carol.click("#btn-chat")
    carol.type("#chat-input", "hello from carol")
    carol.click("#chat-form button[type=submit]")
    for p in (host, bob):
        p.wait_true("return [...document.querySelectorAll('#chat-log li .text')].some((n) => n.textContent === 'hello from carol')", "Carol's chat message")
    ok("Carol's chat message reached the host and Bob")

    # Participants panel, mute all: the members' audio stops arriving at the host.
    host.click("#btn-people")
    host.wait_true(f"return !!document.querySelector('[data-action=\"kick:{carol_uid}\"]')", "the host's member controls")
    host.screenshot("participants")
    host.accessibility("participants")
    start = host.tiles()["audioPackets"]
    host.wait_tiles(lambda s: s["audioPackets"] > start + 50, "the members' audio arriving before mute all")
    host.click('[data-action="mute-all"]')
    for p in (bob, carol):
        p.wait_true("return window.meetApp.meeting.me.micState === 'off' && !window.meetApp.meeting.micTrack", "mic closed by mute all")
    after = wait_audio_silent(host, "after mute all")

    # The host asks Bob to unmute; Bob accepts (by_admin passes mute all) and his audio flows again.
    host.click(f'[data-action="ask-mic:{bob_uid}"]')
    bob.wait_true("return document.getElementById('dialog').open", "the host's request on Bob's screen")
    bob.click('#dialog-buttons button[value="yes"]')
    bob.wait_true("return window.meetApp.meeting.me.micState === 'on' && !!window.meetApp.meeting.micTrack", "Bob's mic on again")
    host.wait_tiles(lambda s: s["audioPackets"] > after + 20, "Bob's audio arriving again")
    ok("the host asked Bob to unmute, Bob accepted, and his audio reaches the host again")

    # Sign-in: Bob signs in, Carol does not; the host's count and the stored results say so.
    host.click("#signin-toggle")
    for p in (bob, carol):
        p.wait_true("return document.getElementById('dialog').open && document.getElementById('dialog-title').textContent === 'Sign in'", "the sign-in question")
    bob.click('#dialog-buttons button[value="yes"]')
    carol.click('#dialog-buttons button[value="no"]')
    host.wait_true("return document.getElementById('signin-status').textContent === 'Signed in: 1 of 2'", "the host's count 1 of 2")
    host.click("#signin-toggle")
    host.wait_true("return document.getElementById('signin-status').textContent.startsWith('Last sign-in: 1 of 2')", "the host's result")
    results = host.run_async("""const done = arguments[0]; const m = window.meetApp.meeting;
      m.getSignInResults(m.getRoomInfo().meetingId).then(done, (e) => done({error: e.message}));""")
    records = {r["uid"]: bool(r.get("signedAt")) for r in results["results"][-1]["records"]}
    expect(records == {bob_uid: True, carol_uid: False}, f"the stored sign-in: Bob signed in, Carol did not ({records})")

    # Roll call: the host calls Carol, who answers.
    host.click(f'[data-action="rollcall:{carol_uid}"]')
    carol.wait_true("return document.getElementById('dialog').open && document.getElementById('dialog-title').textContent === 'Roll call'", "the roll call on Carol's screen")
    carol.click('#dialog-buttons button[value="yes"]')
    host.wait_true("return document.getElementById('toasts').textContent.includes('Roll call: Carol answered')", "the roll call's answer at the host")
    ok("the host called Carol's name and she answered")

    # Breakout rooms: Carol goes to Room 1; the host visits her there, comes back, closes the rooms.
    host.click('[data-action="create-breakouts"]')
    host.wait_true(f"return !!document.querySelector('select[data-action=\"assign:{carol_uid}\"]')", "the breakout room pickers")
    host.run(f"""const s = document.querySelector('select[data-action="assign:{carol_uid}"]');
      s.value = 'S1'; s.dispatchEvent(new Event('change'));""")
    host.wait_true("return window.meetApp.meeting.getSubMeetings().find((s) => s.subMeetingId === 'S1')?.members.length === 1", "Carol assigned to Room 1")
    host.click('[data-action="open-breakouts"]')
    carol.wait_true("return window.meetApp.meeting.currentSubMeetingId === 'S1' && window.meetApp.meeting.channel?.isJoined"
                    " && window.meetApp.meeting.channel.channelId.endsWith('.S1') && !document.getElementById('place-bar').hidden", "Carol in Room 1's channel")
    carol.wait_true("return window.meetApp.meeting.cameraTrack !== null", "Carol's camera open again in Room 1")
    keys = carol.run("return [...document.querySelectorAll('#stage .tile')].map((t) => t.dataset.key)")
    expect(keys == [carol_uid], f"in Room 1 Carol sees only herself ({keys})")
    host.wait_tiles(lambda s: [t["uid"] for t in s["tiles"] if not t["local"]] == [bob_uid], "only Bob's tile at the host")
    ok("Carol moved to Room 1's channel; the main meeting no longer shows her")
    carol.click("#btn-help")
    host.wait_true("return !!document.querySelector('.room-card.help[data-sub=\"S1\"]')", "Room 1 marked as asking for help")
    host.type("#breakout-text", "five minutes left")
    host.click('[data-action="broadcast"]')
    for p in (carol, bob):
        p.wait_true("return document.getElementById('toasts').textContent.includes('five minutes left')", "the host's broadcast")
    ok("Carol's help request reached the host; the host's broadcast reached Room 1 and the main meeting")
    host.screenshot("breakouts")
    host.accessibility("breakouts")
    host.click('[data-action="visit:S1"]')
    host.wait_true("return window.meetApp.meeting.currentSubMeetingId === 'S1'", "the host in Room 1")
    remote_tiles_decode(host, 1, "the host visiting Room 1")
    expect([t["uid"] for t in host.tiles()["tiles"] if not t["local"]] == [carol_uid], "in Room 1 the host decodes Carol's video")
    host.click("#btn-return")
    host.wait_true("return window.meetApp.meeting.currentSubMeetingId === null", "the host back in the main meeting")
    remote_tiles_decode(host, 1, "the host back in the main meeting")
    host.type("#breakout-countdown", "0")
    host.click('[data-action="close-breakouts"]')
    carol.wait_true("return window.meetApp.meeting.currentSubMeetingId === null && document.getElementById('place-bar').hidden", "Carol back in the main meeting")
    host.wait_true("return window.meetApp.meeting.getSubMeetings().length === 0", "no breakout rooms left")
    remote_tiles_decode(host, 2, "everyone back in the main meeting")
    ok("closing the rooms brought Carol back; the host decodes Bob and Carol again")

    # Co-host: Bob gets the room controls.
    host.click(f'[data-action="cohost:{bob_uid}"]')
    bob.wait_true("return window.meetApp.meeting.me.role === 'co_host'", "Bob a co-host")
    bob.click("#btn-people")
    bob.wait_true("return !document.getElementById('room-controls').hidden && !!document.querySelector('[data-action=\"mute-all\"]')", "Bob's room controls")
    bob.click("#btn-people")
    ok("the host made Bob co-host and Bob sees the room controls")

    # Training mode: Carol, a member, loses her camera and may not reopen it; her raised hand,
    # approved, makes her a presenter and the host decodes her camera again.
    host.click('[data-action="training"]')
    carol.wait_true("const m = window.meetApp.meeting; return m.getRoomInfo().mode === 'training' && m.me.cameraState === 'off' && !m.cameraTrack",
                    "Carol's camera closed by training mode")
    refused = carol.call_sdk("try { await m.requestOpenCamera(); return 'opened'; } catch (e) { return e.kind; }")
    expect(refused == "unauthorized", f"in training mode a member who is no presenter cannot open the camera ({refused})")
    carol.click("#btn-hand")
    host.wait_true(f"return !!document.querySelector('[data-action=\"approve:{carol_uid}\"]')", "Carol's raised hand with Approve")
    host.click(f'[data-action="approve:{carol_uid}"]')
    carol.wait_true("const me = window.meetApp.meeting.me; return me.presenter && !me.handRaised", "Carol a presenter")
    carol.click("#btn-camera")
    remote_tiles_decode(host, 2, "Carol presenting")
    host.click('[data-action="training"]')
    host.wait_true("return window.meetApp.meeting.getRoomInfo().mode === 'normal'", "training mode off")
    ok("training mode: Carol's approved hand made her a presenter and the host decodes her camera")

    # Screen share: the others see the share tile decode; the host switches to the speaker view.
    bob.click("#btn-share")
    for p in (host, carol):
        try:
            p.wait_tiles(lambda s: any(t["share"] and t["frames"] > 0 for t in s["tiles"]), "Bob's share tile decoding")
        except CheckFailed as failure:
            raise CheckFailed(f"{failure}\n{share_diagnostics(server, bob)}") from None
    ok("Bob shares his screen and the host and Carol decode the share tile")
    host.click("#btn-people")  # close the panel for a full-width speaker view
    host.wait_true("return document.getElementById('stage').classList.contains('speaker')", "the speaker layout")
    speaker = host.wait_tiles(lambda s: all(t["layer"] == "camera_small" for t in s["tiles"] if not t["local"] and not t["share"]),
                              "strip tiles asking for camera_small")
    ok(f"speaker view: the strip's small tiles ask for camera_small ({[(t['height'], t['layer']) for t in speaker['tiles']]})")
    host.screenshot("speaker")
    host.accessibility("meeting-speaker")
    bob.click("#btn-share")
    host.wait_tiles(lambda s: not any(t["share"] for t in s["tiles"]), "the share tile gone after Bob stops")
    ok("Bob stopped sharing and the share tile is gone")

    # A whiteboard share announces the state only: everyone sees Bob's whiteboard tile, no media flows.
    bob.click("#btn-whiteboard")
    board_js = (f"const t = document.querySelector('#stage .tile.whiteboard-share[data-uid=\"{bob_uid}\"]');"
                " const room = window.meetApp.meeting.getRoomInfo();"
                " return t && [room.sharingUid, room.shareType, t.querySelector('.name').textContent];")
    for p in (host, carol):
        board = p.wait_true(board_js, "Bob's whiteboard tile")
        expect(board == [bob_uid, 2, "Bob is presenting a whiteboard"], f"{p.name} sees Bob presenting a whiteboard ({board})")
    expect(bob.run("return [document.getElementById('btn-whiteboard').getAttribute('aria-pressed'), window.meetApp.meeting.screenTrack]") == ["true", None]
           and not host.run(f"return window.meetApp.meeting.channel.remoteTracksOf('{bob_uid}').some((t) => t.desc === 'screen')"),
           "Bob's whiteboard button is pressed, and a whiteboard share publishes no screen track")
    host.screenshot("whiteboard")
    host.accessibility("meeting-whiteboard")
    bob.click("#btn-whiteboard")
    for p in (host, carol):
        p.wait_true("return !document.querySelector('#stage .tile.whiteboard-share') && !window.meetApp.meeting.getRoomInfo().sharingUid", "the whiteboard tile gone")
    ok("Bob's whiteboard share took the stage for the host and Carol and ended when he stopped it")

    # A view capture (the SDK's startViewCapture of a canvas): the host plays it as Bob's screen.
    view = bob.call_sdk("""const canvas = Object.assign(document.createElement('canvas'), {width: 320, height: 180});
      const g = canvas.getContext('2d');
      window.painter = setInterval(() => { g.fillStyle = `hsl(${Date.now() / 10 % 360} 80% 50%)`; g.fillRect(0, 0, 320, 180); }, 50);
      const track = await m.startViewCapture(canvas.captureStream(15).getVideoTracks()[0]);
      return [track.desc, m.me.viewCapture];""")
    expect(view == ["screen", True], f"Bob publishes a canvas as a view capture ({view})")
    host.wait_true(f"return window.meetApp.meeting.getUserInfo('{bob_uid}').viewCapture", "Bob's view capture at the host")
    played = host.call_sdk(f"""const v = document.createElement('video');
      window.capturePlayer = v;
      const track = await m.startPlayRemoteVideo(v, '{bob_uid}', 'screen');
      for (let i = 0; i < 100; i++) {{
        const stats = await m.channel.getStats();
        let frames = 0;
        stats.subscribe?.forEach((r) => {{ if (r.type === 'inbound-rtp' && r.trackIdentifier === track.mediaStreamTrack?.id) frames = r.framesDecoded || 0; }});
        if (frames > 5) return frames;
        await new Promise((r) => setTimeout(r, 200));
      }}
      return 0;""")
    expect(played > 5, f"the host decodes Bob's view capture ({played} frames)")
    bob.call_sdk("await m.stopViewCapture(); clearInterval(window.painter);")
    host.wait_true(f"return !window.meetApp.meeting.getUserInfo('{bob_uid}').viewCapture"
                   f" && !window.meetApp.meeting.channel.remoteTracksOf('{bob_uid}').some((t) => t.desc === 'screen')", "the view capture gone at the host")
    host.call_sdk(f"await m.stopPlayRemoteVideo(window.capturePlayer, '{bob_uid}', 'screen');")
    ok("Bob stopped his view capture and its screen track is gone at the host")

    # The host removes Carol, who sees why.
    host.click("#btn-people")
    host.click(f'[data-action="kick:{carol_uid}"]')
    host.click('#dialog-buttons button[value="yes"]')
    carol.wait_true("return !document.getElementById('home').hidden", "Carol back home")
    notice = carol.text("#home-notice")
    expect("Hana Host removed you" in notice, f"Carol is told why: {notice!r}")
    host.wait_tiles(lambda s: not any(t["uid"] == carol_uid for t in s["tiles"]), "Carol's tile gone")
    ok("the host sees Carol gone")

    # A dropped media connection: the banner shows (it may be brief: a latch records it), the channel resumes.
    bob.run(BANNER_LATCH_JS)
    bob.run("window.meetApp.meeting.channel._signal.close(4001, 'test: media connection dropped')")
    bob.wait_true("return window.bannerSeen", "the reconnecting banner (media connection)", 10)
    bob.wait_true("return document.getElementById('banner').hidden && window.meetApp.meeting.connectionState === 'connected'", "the media connection back")
    ok("a dropped media connection shows the reconnecting banner and resumes")

    # A dropped meeting connection: the session resumes. Bob waits 1.5 s before trying, so a chat
    # sent meanwhile is one he missed; the host never sees him leave, his camera stays published.
    host.run("window.exits = []; window.meetApp.meeting.addEventListener('userDidExit', (e) => window.exits.push(e.detail.user.uid));")
    camera = bob.run("return window.meetApp.meeting.cameraTrack.id")
    bob.run(BANNER_LATCH_JS)
    bob.run("window.meetApp.meeting.options.reconnectDelaysMs = [1500];"
            "window.meetApp.meeting._client.close(4001, 'test: meeting connection dropped')")
    bob.wait_true("return window.bannerSeen", "the reconnecting banner (meeting connection)", 10)
    host.click("#btn-chat")
    host.type("#chat-input", "said while bob was away")
    host.click("#chat-form button[type=submit]")
    bob.wait_true("return document.getElementById('banner').hidden && window.meetApp.meeting.connectionState === 'connected'", "Bob's session resumed")
    bob.wait_true("return [...document.querySelectorAll('#chat-log li .text')].some((n) => n.textContent === 'said while bob was away')", "the chat Bob missed")
    expect(bob.run("return window.meetApp.meeting.isInRoom && window.meetApp.meeting.cameraTrack?.id") == camera and host.run("return window.exits") == [],
           "Bob is still in the meeting with the same camera track, and the host never saw him leave")
    remote_tiles_decode(host, 1, "after Bob's session resumed")
    host.click("#btn-people")
    ok("a dropped meeting connection shows the banner; the session resumes with the missed chat and the host keeps decoding Bob")

    # Phone width: the same meeting in a narrow window.
    bob.focus()
    driver.set_window_size(390, 844)
    bob.wait_true("return document.getElementById('stage').getBoundingClientRect().width < 400", "the narrow layout")
    expect(bob.run("return document.documentElement.scrollWidth <= window.innerWidth"
                   " && [...document.querySelectorAll('.controls button')].filter((b) => !b.hidden).every((b) => b.getBoundingClientRect().height > 0 && b.textContent.trim())"),
           "at phone width nothing overflows the page and every control is a labelled button (the bar scrolls)")
    bob.click("#btn-people")
    bob.screenshot("phone-participants")
    bob.accessibility("phone")

    # Connection-quality dots follow the quality events: Bob's media goes silent (his page closes
    # its peer connections, telling nobody); the server grades him lost and the host's dot on his
    # tile turns red with the level the host's SDK was told.
    bob.run("for (const pc of Object.values(window.meetApp.meeting.channel.peerConnections)) pc?.close();")
    host.wait_true(f"return window.qualityEvents.some(([uid, q]) => uid === '{bob_uid}' && q === 'lost')", "the host told that Bob's connection is lost")
    dot = host.wait_value(lambda: host.run(DOT_JS, bob_uid), lambda d: d and d["shown"] == "lost", "Bob's dot lost", WAIT_SECONDS, 0.2)
    last = [q for uid, q in host.run("return window.qualityEvents") if uid == bob_uid][-1]
    expect(dot == {"shown": "lost", "label": "connection quality lost", "sdk": "lost"} and last == "lost",
           f"the host's dot on Bob's tile shows the last quality event for him ({dot}, events for Bob end with {last})")
    color = host.run(f"return getComputedStyle(document.querySelector('#stage .tile[data-key=\"{bob_uid}\"] .quality')).backgroundColor")
    danger = host.run("const e = document.createElement('span'); e.style.color = getComputedStyle(document.documentElement).getPropertyValue('--danger');"
                      " document.body.append(e); const c = getComputedStyle(e).color; e.remove(); return c;")
    expect(color == danger, f"the lost dot is drawn in the danger colour ({color}, {danger})")

    # The host ends the meeting for everyone.
    host.click('[data-action="end"]')
    host.click('#dialog-buttons button[value="yes"]')
    bob.wait_true("return !document.getElementById('home').hidden", "Bob back home after the end")
    notice = bob.text("#home-notice")
    expect("Hana Host ended the meeting" in notice, f"Bob is told the meeting ended: {notice!r}")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("meeting app", run, ("--demo-auth", "loopback", "--quality-interval-seconds", "1"),
                            ("--auto-select-desktop-capture-source=Entire screen",), WAIT_SECONDS,
                            lambda driver: dump_browsers(driver, ("Host", "Bob", "Carol"), OUTPUT))


if __name__ == "__main__":
    sys.exit(main())
