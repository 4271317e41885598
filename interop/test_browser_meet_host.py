#!/usr/bin/env python3
"""The meeting app's host controls, clicked as a user would, seen on the other pages.

A real srtc-server with the demo sign-in; three headless Chromium windows run `/meet/` (the
helpers of test_browser_meet.py). The host (Hana) drives the participants panel:

- Lock room: Carol's entry is refused with "The room is locked." on her join form; unlocked, she
  enters;
- per-member Mute: Bob's microphone closes (his page shows Unmute);
- per-member Stop video: Carol's camera closes and the host's decoded frames of her tile stop
  growing while Bob's keep growing;
- Cameras off (all): Bob's camera closes and his own Start video is refused; Allow cameras lets
  him open it again;
- Disable sharing: Bob's Share is refused and no share starts; Allow sharing, Bob shares, and the
  host's Stop sharing on his row ends it (the share tile disappears for Carol);
- Lower hand: Carol's raised hand is lowered by the host (her button reads Raise hand again);
- Disable chat: Bob's chat input and Send are disabled and the SDK's send is refused; Allow chat
  re-enables them and his message arrives;
- Mute for me: Bob mutes Carol's playback on his page only: his audio element for Carol is muted,
  his element for the host and the host's element for Carol still play;
- Make host: Bob becomes the host and sees the host controls (End meeting), Hana loses them.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import CheckFailed, dump_browsers, expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from test_browser_meet import OUTPUT, WAIT_SECONDS, enter_by_number, open_windows, remote_tiles_decode, sign_in  # noqa: E402

# Every <audio> element the SDK creates (it keeps them out of the page): recorded by wrapping the
# Audio constructor before the meeting starts, so the test can read each element's muted flag.
AUDIO_SPY_JS = """
const Original = window.Audio;
window.audioElements = [];
window.Audio = function (...args) { const e = new Original(...args); window.audioElements.push(e); return e; };
"""

# uid → [muted flags] of the audio elements currently playing that member.
AUDIO_MUTES_JS = """
const m = window.meetApp.meeting, out = {};
for (const e of window.audioElements) {
  if (!e.srcObject) continue;
  const track = m.channel?.remoteTracks.find((t) => t.kind === 'audio' && t.mediaStream === e.srcObject);
  if (track) (out[track.uid] ??= []).push(e.muted);
}
return out;
"""


def tile_frames(p, uid):
    tile = [t for t in p.tiles()["tiles"] if t["key"] == uid]
    return tile[0]["frames"] if tile else 0


def wait_frames_still(p, uid, what, quiet_seconds=1.5):
    """Waits until the decoded frames of `uid`'s tile at `p` held still for `quiet_seconds`
    (frames in flight drain first); fails if they keep growing."""
    deadline = time.time() + WAIT_SECONDS
    count, since = tile_frames(p, uid), time.time()
    while time.time() - since < quiet_seconds:
        if time.time() > deadline:
            raise CheckFailed(f"{what}: {p.name} still decodes {uid} after {WAIT_SECONDS} s ({count} frames)")
        time.sleep(0.25)
        now = tile_frames(p, uid)
        if now != count:
            count, since = now, time.time()
    return count


def wait_frames_rise(p, uid, what):
    before = tile_frames(p, uid)
    p.wait_value(lambda: tile_frames(p, uid), lambda f: f > before, what, WAIT_SECONDS, 0.25)


def wait_toast(p, text, what):
    p.wait_true("return document.getElementById('toasts').textContent.includes(arguments[0])", what, None, text)


def refused_until_allowed(host, member, switch, button, toast, refused_js, allowed_js, what):
    """The member's `button` is refused (a toast starting `toast`; `refused_js` holds) while the
    host's room `switch` is off; the host flips it and the member clicks again."""
    member.click(button)
    wait_toast(member, toast, f"{what} refused")
    expect(member.run(refused_js), f"{what} is refused and nothing changed")
    host.click(f'[data-action="{switch}"]')
    member.wait_true(allowed_js, f"{what} allowed again")
    member.click(button)


def run(server, driver):
    os.makedirs(OUTPUT, exist_ok=True)
    host, bob, carol = open_windows(driver)

    for p, name in ((host, "Hana Host"), (bob, "Bob"), (carol, "Carol")):
        sign_in(p, server.base, name)
        p.run(AUDIO_SPY_JS)
    host.type("#start-title-input", "Host controls")
    host.click("#start-button")
    host.wait_true("return !document.getElementById('meeting').hidden && window.meetApp.meeting.isInRoom", "the meeting screen")
    room_no = host.text("#room-no").replace(" ", "")
    enter_by_number(bob, room_no, "")
    bob.wait_true("return window.meetApp.meeting.isInRoom && !document.getElementById('meeting').hidden", "Bob in the meeting")
    bob_uid = bob.run("return window.meetApp.meeting.currentUserId")

    # Lock room: Carol is refused with the app's message; unlocked, she enters.
    host.click("#btn-people")
    host.click('[data-action="lock"]')
    bob.wait_true("return window.meetApp.meeting.getRoomInfo().locked && document.getElementById('room-flags').textContent.includes('Locked')", "the room locked")
    enter_by_number(carol, room_no, "")
    carol.wait_true("return document.getElementById('join-error').textContent.includes('The room is locked.')", "the locked-room error")
    expect(carol.run("return document.getElementById('meeting').hidden && !window.meetApp.meeting.isInRoom"), "Carol stays outside the locked room")
    host.click('[data-action="lock"]')
    bob.wait_true("return !window.meetApp.meeting.getRoomInfo().locked", "the room unlocked")
    enter_by_number(carol, room_no, "")
    carol.wait_true("return window.meetApp.meeting.isInRoom && !document.getElementById('meeting').hidden", "Carol in the meeting")
    carol_uid = carol.run("return window.meetApp.meeting.currentUserId")
    ok("Lock room refused Carol's entry with \"The room is locked.\"; after Unlock room she entered")
    remote_tiles_decode(host, 2, "everyone in")

    # Per-member Mute.
    host.wait_true(f"return !!document.querySelector('[data-action=\"mute:{bob_uid}\"]')", "Bob's Mute button")
    host.click(f'[data-action="mute:{bob_uid}"]')
    bob.wait_true("return window.meetApp.meeting.me.micState === 'off' && document.getElementById('btn-mic').textContent === 'Unmute'", "Bob muted by the host")
    ok("the host's Mute on Bob's row closed Bob's microphone")

    # Per-member Stop video: Carol's frames stop at the host; Bob's keep coming.
    host.click(f'[data-action="camera:{carol_uid}"]')
    carol.wait_true("const m = window.meetApp.meeting; return m.me.cameraState === 'off' && !m.cameraTrack", "Carol's camera closed by the host")
    frozen = wait_frames_still(host, carol_uid, "Carol's video stopped")
    wait_frames_rise(host, bob_uid, "Bob's frames still rising")
    ok(f"the host's Stop video closed Carol's camera: her tile holds still at {frozen} frames while Bob's keep rising")

    # Cameras off for everyone; Bob may not reopen his until the host allows it.
    host.click('[data-action="camera-all"]')
    bob.wait_true("const m = window.meetApp.meeting; return m.getRoomInfo().cameraOffAll && m.me.cameraState === 'off' && !m.cameraTrack", "Bob's camera closed by Cameras off")
    wait_frames_still(host, bob_uid, "Bob's video stopped")
    refused_until_allowed(host, bob, "camera-all", "#btn-camera", "Camera:",
                          "return window.meetApp.meeting.cameraTrack === null && window.meetApp.meeting.me.cameraState === 'off'",
                          "return !window.meetApp.meeting.getRoomInfo().cameraOffAll", "after Cameras off Bob's own Start video")
    bob.wait_true("return !!window.meetApp.meeting.cameraTrack", "Bob's camera open again")
    wait_frames_rise(host, bob_uid, "Bob's frames rising again")
    ok("Cameras off closed Bob's camera and refused his Start video; Allow cameras let him reopen it and the host decodes it")

    # Sharing switch, then the host stops Bob's share.
    host.click('[data-action="share"]')
    bob.wait_true("return window.meetApp.meeting.getRoomInfo().shareDisabled", "sharing disabled")
    refused_until_allowed(host, bob, "share", "#btn-share", "Share:",
                          "const m = window.meetApp.meeting; return !m.me.shareState && !m.screenTrack && !m.getRoomInfo().sharingUid",
                          "return !window.meetApp.meeting.getRoomInfo().shareDisabled", "with sharing disabled Bob's Share")
    carol.wait_tiles(lambda s: any(t["share"] and t["frames"] > 0 for t in s["tiles"]), "Bob's share tile decoding")
    host.wait_true(f"return !!document.querySelector('[data-action=\"stop-share:{bob_uid}\"]')", "Stop sharing on Bob's row")
    host.click(f'[data-action="stop-share:{bob_uid}"]')
    bob.wait_true("const m = window.meetApp.meeting; return !m.me.shareState && !m.screenTrack && document.getElementById('btn-share').textContent === 'Share'", "Bob's share stopped")
    carol.wait_tiles(lambda s: not any(t["share"] for t in s["tiles"]), "the share tile gone")
    ok("Disable sharing refused Bob's Share; allowed, his share reached Carol and the host's Stop sharing ended it")

    # The host lowers Carol's hand.
    carol.click("#btn-hand")
    host.wait_true(f"return !!document.querySelector('[data-action=\"lower:{carol_uid}\"]')", "Carol's hand with Lower hand")
    host.click(f'[data-action="lower:{carol_uid}"]')
    carol.wait_true("return !window.meetApp.meeting.me.handRaised && document.getElementById('btn-hand').textContent === 'Raise hand'", "Carol's hand lowered")
    ok("the host lowered Carol's raised hand")

    # Chat switch for Bob.
    host.click(f'[data-action="chat:{bob_uid}"]')
    bob.click("#btn-chat")
    bob.wait_true("return window.meetApp.meeting.me.chatDisabled && document.getElementById('chat-input').disabled && document.getElementById('chat-send').disabled",
                  "Bob's chat input disabled")
    refused = bob.call_sdk("try { await m.sendRoomChatMessage('sneaked'); return 'sent'; } catch (e) { return e.kind; }")
    expect(refused == "unauthorized", f"with chat disabled the server refuses Bob's message ({refused})")
    host.click(f'[data-action="chat:{bob_uid}"]')
    bob.wait_true("return !document.getElementById('chat-input').disabled", "Bob's chat input enabled again")
    bob.type("#chat-input", "back on")
    bob.click("#chat-send")
    host.wait_true("return [...document.querySelectorAll('#chat-log li .text')].some((n) => n.textContent === 'back on')", "Bob's chat at the host")
    expect(not host.run("return [...document.querySelectorAll('#chat-log li .text')].some((n) => n.textContent === 'sneaked')"),
           "the refused message never reached the host")
    bob.click("#btn-chat")
    ok("Disable chat disabled Bob's chat form and the server refused his message; Allow chat let his message through")

    # Mute for me: on Bob's page only.
    bob.click("#btn-people")
    for p, uid in ((bob, carol_uid), (host, carol_uid), (bob, host.run("return window.meetApp.meeting.currentUserId"))):
        p.wait_true(AUDIO_MUTES_JS.replace("return out;", "return out[arguments[0]]?.length > 0;"), f"an audio element playing {uid}", None, uid)
    bob.click(f'[data-action="listen:{carol_uid}"]')
    host_uid = host.run("return window.meetApp.meeting.currentUserId")
    mutes = bob.wait_true(AUDIO_MUTES_JS.replace("return out;", "return out[arguments[0]].every(Boolean) && out;"), "Carol's audio muted for Bob", None, carol_uid)
    expect(all(mutes[carol_uid]) and not any(mutes[host_uid]) and bob.text(f'[data-action="listen:{carol_uid}"]') == "Unmute for me",
           f"Bob's Mute for me mutes his element for Carol only ({mutes})")
    at_host = host.run(AUDIO_MUTES_JS)
    expect(not any(at_host[carol_uid]), f"the host still plays Carol ({at_host})")
    bob.click(f'[data-action="listen:{carol_uid}"]')
    bob.wait_true(AUDIO_MUTES_JS.replace("return out;", "return !out[arguments[0]].some(Boolean);"), "Carol's audio playing again for Bob", None, carol_uid)
    bob.click("#btn-people")
    ok("Mute for me muted Carol's audio element on Bob's page only; Unmute for me plays it again")

    # Make host: Bob gets the host controls, Hana loses them.
    host.click(f'[data-action="host:{bob_uid}"]')
    host.click('#dialog-buttons button[value="yes"]')
    bob.wait_true("return window.meetApp.meeting.me.role === 'host'", "Bob the host")
    bob.click("#btn-people")
    bob.wait_true("return !document.getElementById('room-controls').hidden && !!document.querySelector('[data-action=\"end\"]')"
                  f" && !!document.querySelector('[data-action=\"host:{carol_uid}\"]')", "Bob's host controls")
    host.wait_true("return window.meetApp.meeting.me.role === 'member' && document.getElementById('room-controls').hidden"
                   " && !document.querySelector('[data-action^=\"mute:\"]')", "Hana without host controls")
    ok("Make host: Bob is the host with the room controls and End meeting; Hana is a member without them")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("meeting app host controls", run, ("--demo-auth", "loopback"),
                            ("--auto-select-desktop-capture-source=Entire screen",), WAIT_SECONDS,
                            lambda driver: dump_browsers(driver, ("Host", "Bob", "Carol"), OUTPUT))


if __name__ == "__main__":
    sys.exit(main())
