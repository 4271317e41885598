#!/usr/bin/env python3
"""An end-to-end encrypted meeting in the meeting app (docs/e2ee.md, "E2EE meetings"): three
headless Chromium windows run `/meet/` (the helpers of test_browser_meet.py).

- The host (Hana) starts a meeting with "End-to-end encrypted" ticked; Bob and Carol enter by
  number. Each page's SDK makes an X25519 key pair (WebCrypto), announces it on the channel's data
  messages, and the host's page seals the meeting key to each.
- All three show the lock with the same verification code, for a key held by the three, and every
  remote camera tile decodes (the frames are encrypted: nothing decodes without the key).
- The host removes Carol: the host's and Bob's pages move to a new key without her (a higher
  epoch, another code, the same on both) and go on decoding each other under it; Carol's page
  never holds that key and decodes no frame from then on.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import dump_browsers, expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from test_browser_meet import OUTPUT, WAIT_SECONDS, enter_by_number, open_windows, remote_tiles_decode, sign_in, uid_of  # noqa: E402

STATUS_JS = "return window.meetApp.meeting.e2eeStatus;"
LOCK_JS = "const n = document.getElementById('e2ee-lock'); return n.hidden ? null : n.textContent;"


def run(server, driver):
    os.makedirs(OUTPUT, exist_ok=True)
    host, bob, carol = open_windows(driver)
    sign_in(host, server.base, "Hana Host")
    host.type("#start-title-input", "Secret review")
    host.click("#start-e2ee")
    host.click("#start-button")
    host.wait_true("return !document.getElementById('meeting').hidden && document.getElementById('room-no').textContent.length > 0", "the meeting screen")
    room_no = host.text("#room-no").replace(" ", "")
    expect(host.call_sdk("return m.getRoomInfo().e2ee;") is True, "the room is end-to-end encrypted")
    for member in (bob, carol):
        sign_in(member, server.base, member.name)
        enter_by_number(member, room_no, "")
        member.wait_true("return !document.getElementById('meeting').hidden", f"{member.name} in the meeting")

    pages = (host, bob, carol)
    statuses = [p.wait_value(lambda p=p: p.run(STATUS_JS), lambda s: s is not None and len(s["members"]) == 3,
                             f"{p.name} holding a key for the three", WAIT_SECONDS) for p in pages]
    statuses = [p.wait_value(lambda p=p: p.run(STATUS_JS), lambda s: s["epoch"] == max(x["epoch"] for x in statuses),
                             f"{p.name} on the newest key", WAIT_SECONDS) for p in pages]
    codes = {s["verificationCode"] for s in statuses}
    expect(len(codes) == 1, f"the three hold one key with one code ({statuses})")
    code = codes.pop()
    locks = [p.wait_value(lambda p=p: p.run(LOCK_JS), lambda t: t and code in t, f"{p.name}'s lock", WAIT_SECONDS) for p in pages]
    ok(f"all three show the lock with code {code} (epoch {statuses[0]['epoch']}): {locks}")
    for p in pages:
        remote_tiles_decode(p, 2, f"{p.name}, encrypted")
    ok("every page decodes the other two cameras, encrypted end to end")

    carol_uid = uid_of(host, "Carol")
    host.call_sdk(f"await m.adminKickOut('{carol_uid}');")
    after = [p.wait_value(lambda p=p: p.run(STATUS_JS), lambda s: s and s["epoch"] > statuses[0]["epoch"] and carol_uid not in s["members"],
                          f"{p.name} on a key without Carol", WAIT_SECONDS) for p in (host, bob)]
    after = [p.wait_value(lambda p=p: p.run(STATUS_JS), lambda s: s["epoch"] == max(x["epoch"] for x in after),
                          f"{p.name} on the newest key", WAIT_SECONDS) for p in (host, bob)]
    expect(after[0]["verificationCode"] == after[1]["verificationCode"] != code,
           f"host and Bob share a new code without Carol ({after})")
    for p in (host, bob):
        remote_tiles_decode(p, 1, f"{p.name}, after Carol's removal")
    ok(f"after Carol's removal: epoch {after[0]['epoch']}, code {after[0]['verificationCode']}, host and Bob decode each other")

    # Carol, removed: never the new key, and no frame decoded from then on.
    def carol_decoded():
        return sum(t["frames"] for t in carol.tiles()["tiles"] if not t["local"])
    carol_status = carol.run(STATUS_JS)
    expect(carol_status is None or carol_status["epoch"] < after[0]["epoch"], f"Carol does not hold the new key ({carol_status})")
    before = carol_decoded()
    time.sleep(3)
    later = carol_decoded()
    expect(later <= before, f"Carol decodes nothing after her removal ({before} frames, then {later})")
    ok(f"Carol, removed: {'no key' if carol_status is None else 'epoch ' + str(carol_status['epoch'])}, no frame decoded in 3 s ({later} in all)")


def main():
    reexec_in_loopback_namespace(__file__)
    return run_browser_test("E2EE meeting app", run, ("--demo-auth", "loopback"), (), WAIT_SECONDS,
                            lambda driver: dump_browsers(driver, ("Host", "Bob", "Carol"), OUTPUT))


if __name__ == "__main__":
    sys.exit(main())
