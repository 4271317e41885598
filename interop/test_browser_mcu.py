#!/usr/bin/env python3
"""The server-side composite (MCU) in a real Chromium, through the SMeeting web SDK
(`startPlayRemoteVideoMcu` / `stopPlayRemoteVideoMcu`, docs/sdk-web.md):

- Chromium's camera is a Y4M test pattern (`--use-file-for-fake-video-capture`): each frame
  carries its frame number in a band of black and white cells, as the Swift test patterns do
  (RTCMedia/TestPatterns/TestPatternLayout.swift: 2 × 16 cells, 24 number bits + an 8-bit check);
- the browser creates a `mix` meeting, enters it and turns its camera on; the server's composite
  (uid `mcu`, made by an `srtc-egress` worker) shows that camera;
- the page plays the composite with `startPlayRemoteVideoMcu(view, SMeetingEngine.mixCompositeUid)`;
  the test draws the `<video>` into a canvas and reads the frame numbers out of the decoded
  pixels: valid codes, from the file, advancing;
- the composite's worker is killed: the server restarts it and the same view shows the composite
  again (a new track, frame numbers advancing);
- errors: not in a meeting (`notInMeeting`), a member's uid, a `normal` meeting without a
  composite (`internalError`); `stopPlayRemoteVideoMcu` unbinds and unsubscribes.

Runs in a loopback-only network namespace when `unshare -n` is allowed, like the other media tests.
"""
import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import CheckFailed, dump_browsers, expect, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from srtc_test_support import number_from_cells, paint_code_band  # noqa: E402
from test_browser_media import Tab  # noqa: E402

WAIT = 30
WIDTH, HEIGHT, FPS, FRAMES = 640, 360, 15, 45
FIRST_NUMBER = 7000


def write_pattern_y4m(path):
    """FRAMES frames of WIDTH×HEIGHT numbered from FIRST_NUMBER: the code band on mid grey."""
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        chroma = bytes([128]) * (WIDTH // 2 * HEIGHT // 2)
        for n in range(FRAMES):
            luma = bytearray([128]) * (WIDTH * HEIGHT)
            paint_code_band(luma, WIDTH, HEIGHT, FIRST_NUMBER + n)
            f.write(b"FRAME\n" + bytes(luma) + chroma + chroma)


# The luma of each code cell of the view's current picture (the centre half of the cell, averaged),
# with the picture's size and the id of the composite track it shows.
CELLS_JS = """
const v = window.mcuView;
if (!v || !v.videoWidth || v.readyState < 2) return null;
const w = v.videoWidth, h = v.videoHeight;
const canvas = window.mcuCanvas ??= document.createElement('canvas');
canvas.width = w; canvas.height = h;
const ctx = canvas.getContext('2d', {willReadFrequently: true});
ctx.drawImage(v, 0, 0, w, h);
const cw = Math.floor(w / 16), chh = Math.max(4, Math.floor(h / 12));
const cells = [];
for (let i = 0; i < 32; i++) {
  const x0 = (i % 16) * cw + Math.floor(cw / 4), y0 = Math.floor(i / 16) * chh + Math.floor(chh / 4);
  const d = ctx.getImageData(x0, y0, Math.max(1, Math.floor(cw / 2)), Math.max(1, Math.floor(chh / 2))).data;
  let sum = 0;
  for (let p = 0; p < d.length; p += 4) sum += 0.299 * d[p] + 0.587 * d[p + 1] + 0.114 * d[p + 2];
  cells.push(sum / (d.length / 4));
}
// The SRTC track whose stream the view shows (Chromium reuses a receiver's MediaStreamTrack, id
// and all, when the subscriber's m-section is recycled for a new track: only the stream tells).
const shown = window.m?.channel?.remoteTracksOf('mcu').find((t) => t.mediaStream === v.srcObject);
return {cells, size: `${w}x${h}`, track: shown ? shown.id : null};
"""

# Runs `body` as an async function of the meeting engine `m` and the SDK module `sdk`.
MEET_JS = """
const [body, done] = arguments;
const summarize = (a) => {
  if (a && typeof a === 'object' && 'mediaStreamTrack' in a) return {id: a.id, uid: a.uid, desc: a.desc, isSubscribed: a.isSubscribed};
  try { return JSON.parse(JSON.stringify(a === undefined ? null : a)); } catch (e) { return String(a); }
};
(async () => {
  window.sdk ??= await import('/sdk/smeeting.js');
  const fn = new Function('m', 'sdk', 'return (async () => {' + body + '})()');
  return fn(window.m, window.sdk);
})().then((value) => done({ok: true, value: summarize(value)}),
          (e) => done({ok: false, error: e.message, kind: e.kind, code: e.code}));
"""


class Page(Tab):
    def meet(self, body):
        return self.run_async(MEET_JS, body)

    def must(self, body, what):
        result = self.meet(body)
        if not result["ok"]:
            raise CheckFailed(f"{what}: {result}")
        return result["value"]

    def composite_numbers(self, count, what, timeout=WAIT, skip_tracks=frozenset()):
        """Frame numbers read from the composite's decoded pictures until `count` were read
        (pictures of no composite track, or of `skip_tracks`, ignored)."""
        deadline = time.time() + timeout
        numbers, sizes, tracks, unreadable = [], set(), set(), 0
        while time.time() < deadline and len(numbers) < count:
            picture = self.run(CELLS_JS)
            if picture and picture["track"] and picture["track"] not in skip_tracks:
                number = number_from_cells(picture["cells"])
                if number is None:
                    unreadable += 1
                else:
                    numbers.append(number)
                    sizes.add(picture["size"])
                    tracks.add(picture["track"])
            time.sleep(0.12)
        if len(numbers) < count:
            raise CheckFailed(f"{what}: {len(numbers)} frame numbers read in {timeout} s ({unreadable} unreadable): {numbers}")
        return numbers, sizes, tracks


def expect_pattern(numbers, what):
    """The numbers come from the file and advance (it loops: compare modulo its length)."""
    expect(all(FIRST_NUMBER <= n < FIRST_NUMBER + FRAMES for n in numbers),
           f"{what}: every number read is one of the camera file's ({min(numbers)}…{max(numbers)})")
    steps = [(b - a) % FRAMES for a, b in zip(numbers, numbers[1:])]
    expect(len(set(numbers)) >= 4 and sum(1 for s in steps if 0 < s < FRAMES // 2) >= len(steps) // 2,
           f"{what}: the numbers advance ({numbers})")


def egress_workers(server_pid):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        if name == "srtc-egress" and int(fields[1]) == server_pid:
            pids.append(int(entry))
    return pids


def run(server, driver):
    driver.get(server.base + "/")
    page = Page(driver, driver.current_window_handle, "browser")
    status, grant = server.call("POST", "/stm/srvapi/v1/member/grant", {"uid": "hana", "nickname": "Hana"})
    expect(status == 200, "a member token for hana")
    page.must(f"""
      const engine = new sdk.SMeetingEngine(location.origin, {{logLevel: 'info'}});
      window.m = engine;
      await engine.login({grant['token']!r});
      window.mcuView = document.createElement('video');
      mcuView.width = 320; mcuView.height = 180;
      document.body.appendChild(mcuView);
    """, "login")

    before = page.meet("return m.startPlayRemoteVideoMcu(mcuView, sdk.SMeetingEngine.mixCompositeUid);")
    expect(not before["ok"] and before["kind"] == "notInMeeting", f"outside a meeting: notInMeeting ({before})")

    page.must("""
      const info = await m.createRoom({title: 'All hands', mode: sdk.MeetingMode.mix});
      await m.enterRoom({meetingId: info.meetingId});
      await m.requestOpenCamera({preset: sdk.CameraPreset.h360p});
      window.mcuEvents = [];
      for (const name of ['didAddTrack', 'didRemoveTrack', 'trackDidBindRtcTrack', 'subscriptionDidEnd']) {
        m.channel.on(name, (...a) => mcuEvents.push([name, ...a.map((x) => x?.id ?? x?.uid ?? x?.trackId ?? null)]));
      }
    """, "a mix meeting with my camera on")
    track = page.must("return m.startPlayRemoteVideoMcu(mcuView, sdk.SMeetingEngine.mixCompositeUid);", "startPlayRemoteVideoMcu")
    expect(track["uid"] == "mcu" and track["desc"] == "camera_big" and track["isSubscribed"],
           f"startPlayRemoteVideoMcu returns the composite's subscribed track ({track})")
    users = page.must("return m.getUsersInfoList().map((u) => u.uid);", "users")
    expect(users == ["hana"], f"the composite is no member ({users})")

    numbers, sizes, tracks = page.composite_numbers(12, "the composite")
    expect_pattern(numbers, "the composite shows my camera")
    expect(tracks == {track["id"]}, f"the view shows the track startPlayRemoteVideoMcu returned ({tracks})")
    ok(f"decoded composite pictures {sorted(sizes)} carry the camera's frame numbers")

    member = page.meet("return m.startPlayRemoteVideoMcu(document.createElement('video'), 'hana');")
    expect(not member["ok"] and member["kind"] == "internalError", f"a member's uid is no composite: internalError ({member.get('error')})")

    # The composite's worker dies: the server restarts it, and the view follows the new track.
    workers = egress_workers(server.proc.pid)
    expect(len(workers) == 1, f"one srtc-egress worker ({workers})")
    os.kill(workers[0], signal.SIGKILL)
    again, _, new_tracks = page.composite_numbers(8, "the composite after its worker was killed", timeout=WAIT + 15, skip_tracks=tracks)
    expect(len(new_tracks) == 1, f"the same view shows the restarted composite's new track {sorted(new_tracks)}, not {track['id']}")
    expect_pattern(again, "the restarted composite shows my camera")

    stopped = page.must("""
      const track = m.channel.remoteTracksOf('mcu').find((t) => t.desc === 'camera_big');
      await m.stopPlayRemoteVideoMcu(mcuView);
      await m.stopPlayRemoteVideoMcu(mcuView);
      return {srcObject: mcuView.srcObject !== null, subscribed: track.isSubscribed};
    """, "stopPlayRemoteVideoMcu")
    expect(stopped == {"srcObject": False, "subscribed": False}, f"stopPlayRemoteVideoMcu unbinds and unsubscribes ({stopped})")

    started = time.time()
    normal = page.meet("""
      await m.exitRoom();
      const info = await m.createRoom({title: 'Standup'});
      await m.enterRoom({meetingId: info.meetingId});
      return m.startPlayRemoteVideoMcu(mcuView, 'mcu');
    """)
    expect(not normal["ok"] and normal["kind"] == "internalError" and "no composite" in normal["error"],
           f"a normal meeting has no composite: internalError ({normal.get('error')}, {time.time() - started:.1f} s)")
    page.must("await m.exitRoom(); await m.logout();", "exit")


DUMP_JS = "return JSON.stringify({events: window.mcuEvents ?? [], tracks: window.m?.channel?.remoteTracksOf('mcu').map((t) => ({id: t.id, desc: t.desc, subscribed: t.isSubscribed, ended: t.isEnded, stream: !!t.mediaStream})), view: window.mcuView?.srcObject?.getVideoTracks().map((t) => [t.id, t.readyState, t.muted])});"


def dump(driver):
    print("--- composite state in the page ---")
    print(driver.execute_script(DUMP_JS))
    dump_browsers(driver, ["browser"])


def main():
    reexec_in_loopback_namespace(__file__)
    folder = tempfile.mkdtemp(prefix="srtc-mcu-")
    camera = os.path.join(folder, "pattern.y4m")
    write_pattern_y4m(camera)
    try:
        return run_browser_test("composite video in Chromium", run, wait_seconds=WAIT, dump=dump,
                                driver_flags=(f"--use-file-for-fake-video-capture={camera}",))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
