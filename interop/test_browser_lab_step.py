#!/usr/bin/env python3
"""Chromium as a simulcast subscriber on a shaped link (issue 26, docs/network.md "The lab"): the
browser (web SDK) runs in a client namespace joined straight to the server's (`ClientServerLab`)
and subscribes with `layer: 'camera_big'` to a Swift publisher beside the server (`srtc join
--desc camera_big`: 640×360 + 160×90 VP8 simulcast and a 440 Hz tone). A kernel tbf on the
server's veth end (burst 8 kB, queue 200 ms, as the Swift lab's tests) shapes what the browser
receives, in one session and in sequence:

1. 2 Mbit/s for 8 s (no switch for bandwidth), 300 kbit/s for 10 s (down to `camera_small`),
   2 Mbit/s until `camera_big` is back, 2 s more;
2. 150 kbit/s, below the small layer plus audio, until the video pauses (`layer_switched` to
   `none`) and 6 s more; then unlimited until the video resumes.

The page records the SDK's `didSwitchLayer` events and samples the subscribe connection's
`inbound-rtp` every 250 ms (video `frameWidth`, `framesDecoded`, `freezeCount`,
`totalFreezesDuration`; audio `packetsReceived`, `concealedSamples`, `totalSamplesReceived`,
`ssrc`), all on the wall clock the link changes are timed with. Through the step the script also
captures the audio's RTP headers on the client's veth (`rtp_capture.RTPCapture`, kernel receive
times) and lays each packet on the sender's clock (its RTP timestamp). Asserted: no switch for
bandwidth at 2 Mbit/s, the issue's step down (`camera_small` within 2 s of the drop,
`camera_big` within 8 s of the return, each followed by frames of that width, no Chromium freeze
over 500 ms on the small layer), the issue's audio at 48 packets/s or more throughout: in every
sliding 1 s window of SEND time through the step, the distinct packets that reached the client;
Chromium's arrivals (`packetsReceived`) per 1 s window of ARRIVAL time at half that (they dip
while the tbf's queue holds the audio at the drop: late, not lost; half says they never stall),
the pause within 20 s, audio on while paused, the video back within 25 s of the link's return.
Printed: the times, the worst freeze; for the audio, per window of send time the packets arrived
at all and within 300 ms, the numbers that never arrived or came after higher ones (resends), the
queueing delay (peak, where, per 250 ms around the drop); beside them per window of arrival time
Chromium's arrivals and the audio it played from packets (samples received less concealed),
concealment.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rtp_capture import RTPCapture, SendTimeView  # noqa: E402
from srtc_test_support import SUMMARIZE_JS, Tab, expect, ok, run_browser_lab_test, wait_until  # noqa: E402

CHANNEL = "lab"
WAIT_SECONDS = 30
ISSUE_DOWN_SECONDS, ISSUE_UP_SECONDS, ISSUE_FREEZE_SECONDS = 2.0, 8.0, 0.5  # the issue's step down, asserted
ISSUE_AUDIO_RATE = 48  # the issue's floor (the bot sends 50 Opus packets a second), asserted per 1 s of send time
AUDIO_FLOOR = ISSUE_AUDIO_RATE / 2  # asserted on arrivals (Chromium's packetsReceived) per 1 s: audio never stalls
IN_TIME_SECONDS = 0.3  # "arrived within 300 ms of its send time", printed beside the any-time count

# Joins, subscribes to every track of the bot (video at camera_big) and samples the subscribe
# connection's inbound-rtp every 250 ms into window.samples; events go to window.events. Times
# are Date.now() seconds, the clock the script's link changes are read from.
SETUP_JS = SUMMARIZE_JS + r"""
const [token, done] = arguments;
window.events = [];
window.samples = [];
window.tracks = {};
import('/sdk/srtc.js').then(async (srtc) => {
  const ch = new srtc.SRTCChannel({logLevel: 'info'});
  window.ch = ch;
  ch.onAny((name, ...args) => window.events.push({name, t: Date.now() / 1000, args: args.map(window.summarize)}));
  ch.on('didAddTrack', (user, track) => {
    window.tracks[track.kind] = track.id;
    ch.subscribe(track.id, track.kind === 'video' ? {layer: 'camera_big'} : {}).catch((e) => console.log('subscribe: ' + e.message));
  });
  await ch.join(location.origin, token);
  const sample = async () => {
    try {
      const {subscribe} = await ch.getStats();
      const s = {t: Date.now() / 1000, width: 0, frames: 0, freezes: 0, frozen: 0, audio: 0, concealed: 0, samples: 0, audioSsrc: null};
      let video = null;
      subscribe?.forEach((r) => {
        if (r.type !== 'inbound-rtp') return;
        if (r.kind === 'video' && (!video || (r.framesDecoded || 0) > (video.framesDecoded || 0))) video = r;
        if (r.kind === 'audio') {
          s.audio += r.packetsReceived || 0; s.concealed += r.concealedSamples || 0; s.samples += r.totalSamplesReceived || 0;
          s.audioSsrc = r.ssrc;
          // The report's own time when it is on the same clock (Chromium: ms since the epoch).
          if (Math.abs(r.timestamp - Date.now()) < 5000) s.t = r.timestamp / 1000;
        }
      });
      if (video) {
        s.width = video.frameWidth || 0; s.frames = video.framesDecoded || 0;
        s.freezes = video.freezeCount || 0; s.frozen = video.totalFreezesDuration || 0;
      }
      window.samples.push(s);
    } catch (e) { console.log('getStats: ' + e); }
    setTimeout(sample, 250);  // after the previous one: no pile-up when the machine is slow
  };
  sample();
  done({ok: true});
}).catch((e) => done({ok: false, error: String(e)}));
"""


# Plays both received tracks once they flow (Chromium counts received audio samples, and video
# freezes, for what plays; headless has no audio device, so Web Audio pulls the samples).
PLAY_JS = """
for (const [kind, id] of Object.entries(window.tracks)) {
  const element = document.createElement(kind);
  element.muted = kind === 'video';
  element.srcObject = new MediaStream([window.ch.remoteTrack(id).mediaStreamTrack]);
  document.body.appendChild(element);
  element.play();
  if (kind === 'audio') {
    window.audioContext = new AudioContext();
    window.audioContext.createMediaStreamSource(element.srcObject).connect(window.audioContext.createAnalyser());
  }
}
return Object.keys(window.tracks).sort();
"""


class Recording:
    """The page's events and samples, fetched as a whole (the list grows; fetch again for more)."""

    def __init__(self, page):
        self.page = page
        self.refresh()

    def refresh(self):
        self.samples = self.page.run("return window.samples")
        self.switches = [dict(e["args"][0], t=e["t"]) for e in self.page.run("return window.events.filter((e) => e.name === 'didSwitchLayer')")
                         if e["args"] and isinstance(e["args"][0], dict)]
        return self

    def last(self):
        return self.samples[-1] if self.samples else {}

    def switch(self, since, layer, previous=None):
        """The first `layer_switched` to `layer` (cause bandwidth) at or after `since`, or None."""
        return next((s for s in self.switches if s["t"] >= since and s.get("layer") == layer and s.get("cause") == "bandwidth"
                     and (previous is None or s.get("previous") == previous)), None)

    def first_width(self, since, width):
        return next((s["t"] for s in self.samples if s["t"] >= since and s["width"] == width and s["frames"] > 0), None)

    def between(self, start, end):
        return [s for s in self.samples if start <= s["t"] <= end]

    def audio_windows(self, start, end):
        """(start time, audio packets a second) of every sliding 1 s window of samples between `start` and `end`."""
        samples, windows = self.between(start, end), []
        for index, first in enumerate(samples):
            last = next((s for s in samples[index:] if s["t"] - first["t"] >= 1.0), None)
            if last is None:
                break
            windows.append((first["t"], (last["audio"] - first["audio"]) / (last["t"] - first["t"])))
        return windows

    def audio_rates(self, start, end):
        return [rate for _, rate in self.audio_windows(start, end)]

    def audio_decoded(self, start, end):
        """20 ms of audio played from a packet (received, or rebuilt by RED/NACK in time) per second
        in every sliding 1 s window: samples received less those concealed, in 960-sample (48 kHz)
        frames; what the Swift lab's "decoded per second of sent audio" measures, as the listener
        hears it (a packet late in the tbf's queue still plays, stretched by NetEq)."""
        samples, windows = self.between(start, end), []
        for index, first in enumerate(samples):
            last = next((s for s in samples[index:] if s["t"] - first["t"] >= 1.0), None)
            if last is None:
                break
            played = (last["samples"] - first["samples"]) - (last["concealed"] - first["concealed"])
            windows.append(played / 960.0 / (last["t"] - first["t"]))
        return windows

    def worst_freeze(self, start, end):
        """Chromium's freezes that ended between `start` and `end`: (count, total s, longest s)."""
        samples = self.between(start, end)
        longest = 0.0
        for before, after in zip(samples, samples[1:]):
            count = after["freezes"] - before["freezes"]
            if count > 0:
                longest = max(longest, (after["frozen"] - before["frozen"]) / count)
        if len(samples) < 2:
            return 0, 0.0, 0.0
        return samples[-1]["freezes"] - samples[0]["freezes"], samples[-1]["frozen"] - samples[0]["frozen"], longest

    def worst_gap(self, start, end):
        """The longest time between two samples that saw new frames decoded (0.25 s resolution)."""
        times = [after["t"] for before, after in zip(self.samples, self.samples[1:])
                 if start <= after["t"] <= end and after["frames"] > before["frames"]]
        return max((b - a for a, b in zip(times, times[1:])), default=0.0)

    def concealment(self, start, end):
        samples = self.between(start, end)
        if len(samples) < 2:
            return 0, 0
        return samples[-1]["concealed"] - samples[0]["concealed"], samples[-1]["samples"] - samples[0]["samples"]


def tbf_counts(lab):
    """The tbf's counters ("Sent B bytes P pkt (dropped D, ..."), shortened."""
    import re
    found = re.search(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+)", lab.queue_statistics())
    return "%s bytes (%s packets) sent, %s dropped" % found.groups() if found else "no tbf"


def wait_for(page, what, found, timeout):
    """Polls the page's recording every 0.25 s until `found(recording)` returns something; returns it."""
    result = [None]

    def check():
        result[0] = found(Recording(page))
        return result[0] is not None
    wait_until(check, what, timeout=timeout, interval=0.25)
    return result[0]


def audio_sent(capture, ssrc, wide_at, narrow_at, wide_again_at, end):
    """The audio on the wire (`RTPCapture` on the client's veth) laid on the sender's clock:
    prints, per 1 s window of send time from `wide_at` to half a second before `end` (what was sent
    later may still be on its way), the distinct packets that arrived and those that arrived within
    `IN_TIME_SECONDS` of their send time, the packets that never arrived and the resent copies,
    and the queueing delay (arrival − send − least). Returns the windows' lowest any-time rate and
    where it starts."""
    view = SendTimeView(capture.stream(ssrc))
    windows = view.windows(wide_at, end - 0.5, within=IN_TIME_SECONDS)
    lowest = min(windows, key=lambda w: w.arrived, default=None)
    lowest_in_time = min(windows, key=lambda w: w.in_time, default=None)
    sent = [p for p in view.packets if wide_at <= view.send_time(p) < end - 0.5]
    missing = [(n, t) for n, t in view.missing if wide_at <= t < end - 0.5]
    peak, peak_at = view.worst_delay(wide_at, end - 0.5)
    peak_return, peak_return_at = view.worst_delay(wide_again_at, end - 0.5)
    curve = view.delay_curve(narrow_at - 0.5, narrow_at + 3)
    late = [p for p in sent if view.delay(p) > IN_TIME_SECONDS]
    print("  audio on the wire, per 1 s window of SEND time (captured on the client's veth, SSRC %d; RTP timestamp on the wall clock "
          "at the least delay; %d frames read, %d lost by the capture's buffer):" % (ssrc, capture.frames, capture.dropped))
    if lowest:
        print("    arrived at any time: lowest %.1f packets/s (window sent from %+.2f s of the drop), %d of %d windows under %d; "
              "arrived within %d ms of sending: lowest %.1f (from %+.2f s), %d under %d"
              % (lowest.arrived, lowest.start - narrow_at, sum(1 for w in windows if w.arrived < ISSUE_AUDIO_RATE), len(windows),
                 ISSUE_AUDIO_RATE, IN_TIME_SECONDS * 1000, lowest_in_time.in_time, lowest_in_time.start - narrow_at,
                 sum(1 for w in windows if w.in_time < ISSUE_AUDIO_RATE), ISSUE_AUDIO_RATE))
    first = {p.sequence: p for p in view.packets}
    copies = ", ".join("#%d sent %+.2f s, %.0f ms after its first" % (p.sequence, view.send_time(p) - narrow_at,
                                                                    1000 * (p.arrival - first[p.sequence].arrival)) for p in view.resent[:8])
    filled = ", ".join("#%d sent %+.2f s, %.0f ms late" % (p.sequence, view.send_time(p) - narrow_at, 1000 * view.delay(p))
                       for p in view.filled if wide_at <= view.send_time(p) < end - 0.5)
    print("    came after a higher number (the original lost, a resend): %s" % (filled or "none"))
    print("    %d packets arrived of %d sent; never arrived: %s; copies of a number that had arrived (resends): %d%s; later than %d ms: %d"
          % (len(sent), len(sent) + len(missing), ", ".join("#%d sent %+.2f s" % (n, t - narrow_at) for n, t in missing) or "none",
             len(view.resent), f" ({copies})" if copies else "", IN_TIME_SECONDS * 1000, len(late)))
    print("    queueing delay (arrival − send − least): peak %.0f ms, sent %+.2f s from the drop; after the return peak %.0f ms "
          "(%+.2f s from it); worst per 250 ms from 0.5 s before the drop to 3 s after: %s"
          % (1000 * peak, peak_at - narrow_at, 1000 * peak_return, peak_return_at - wide_again_at,
             " ".join("-" if d is None else "%.0f" % (1000 * d) for d in curve)))
    return (lowest.arrived, lowest.start) if lowest else (0.0, wide_at)


def step(lab, page):
    """2 Mbit/s → 300 kbit/s → 2 Mbit/s; returns when the big layer has been back 2 s, with the
    phases' times (wall clock, s): {"narrow_at", "wide_again_at", "end"}. The audio reaching the
    client's veth is captured meanwhile (`rtp_capture.RTPCapture`) and judged per second it was sent."""
    ssrc = Recording(page).last().get("audioSsrc")
    expect(ssrc, f"the subscriber's audio inbound-rtp has an SSRC ({ssrc})")
    capture = RTPCapture(lab.client_device).start()
    try:
        return step_captured(lab, page, capture, ssrc)
    finally:
        capture.stop()


def step_captured(lab, page, capture, ssrc):
    lab.limit(2_000_000)
    wide_at = time.time()
    wait_for(page, "640-wide frames at 2 Mbit/s", lambda r: r.first_width(wide_at, 640), WAIT_SECONDS)
    wide_at = time.time()
    time.sleep(8)

    narrow_at = time.time()
    lab.limit(300_000)
    down = wait_for(page, "layer_switched camera_small within 10 s of the drop to 300 kbit/s",
                    lambda r: r.switch(narrow_at, "camera_small"), 10)
    small = wait_for(page, "a 160-wide frame after the switch down", lambda r: r.first_width(down["t"], 160), 10)
    time.sleep(max(0.0, 10 - (time.time() - narrow_at)))

    wide_again_at = time.time()
    lab.limit(2_000_000)
    up = wait_for(page, "layer_switched camera_big within 25 s of the return to 2 Mbit/s",
                  lambda r: r.switch(wide_again_at, "camera_big"), 25)
    big = wait_for(page, "a 640-wide frame after the switch up", lambda r: r.first_width(up["t"], 640), 10)
    time.sleep(2)
    end = time.time()
    capture.stop()

    queue = tbf_counts(lab)
    r = Recording(page)
    wide_switches = [s for s in r.switches if wide_at <= s["t"] < narrow_at and s.get("cause") == "bandwidth"]
    rates = r.audio_rates(wide_at, end)
    transition = r.audio_rates(narrow_at, narrow_at + 3)
    return_transition = r.audio_rates(wide_again_at, wide_again_at + 3)
    count, total, longest = r.worst_freeze(small, wide_again_at)
    concealed, samples = r.concealment(wide_at, end)
    decoded = r.audio_decoded(wide_at, end)
    print("network lab (Chromium), 2 Mbit/s → 300 kbit/s → 2 Mbit/s: %d bandwidth switches at 2 Mbit/s" % len(wide_switches))
    print("  300 kbit/s: layer_switched camera_small %.2f s after (issue: 2 s), first 160-wide frame %.2f s after"
          % (down["t"] - narrow_at, small - narrow_at))
    print("  2 Mbit/s again: layer_switched camera_big %.2f s after (issue: 8 s), first 640-wide frame %.2f s after"
          % (up["t"] - wide_again_at, big - wide_again_at))
    print("  on the small layer: %d freezes, %.3f s frozen, longest %.3f s (issue: 500 ms); worst gap between samples with new frames %.2f s"
          % (count, total, longest, r.worst_gap(small, wide_again_at)))
    lowest_at = min(r.audio_windows(wide_at, end), key=lambda w: w[1], default=(narrow_at, 0))[0]
    print("  audio arrivals (Chromium's packetsReceived per 1 s window of ARRIVAL time): lowest %.1f packets/s (starting %+.2f s from the drop; %.1f in the 3 s after the drop, %.1f in the 3 s"
          " after the return), mean %.1f/s, %d of %d windows under %d; %d of %d samples concealed (%.2f %%)"
          % (min(rates, default=0), lowest_at - narrow_at, min(transition, default=0), min(return_transition, default=0),
             sum(rates) / max(1, len(rates)),
             sum(1 for x in rates if x < ISSUE_AUDIO_RATE), len(rates), ISSUE_AUDIO_RATE, concealed, samples,
             100.0 * concealed / max(1, samples)))
    print("  audio played from packets (Chromium's samples received less concealed, 960 a frame, per 1 s of playout): lowest %.1f frames/s, %d of %d windows under %d"
          % (min(decoded, default=0), sum(1 for x in decoded if x < ISSUE_AUDIO_RATE), len(decoded), ISSUE_AUDIO_RATE))
    sent_lowest, _ = audio_sent(capture, ssrc, wide_at, narrow_at, wide_again_at, end)
    print("  switches: " + ", ".join("%s→%s (%s) at %+.2f s" % (s.get("previous"), s.get("layer"), s.get("cause"), s["t"] - narrow_at)
                                     for s in r.switches if s["t"] >= wide_at))
    print("  the tbf (the three phases): " + queue)
    expect(not wide_switches, f"no switch for bandwidth in 8 s at 2 Mbit/s ({wide_switches})")
    ok("camera_small after the drop, camera_big after the return, each with frames of its width")
    # The issue's bounds (seen 0.46-0.51 s down, 2.95-3.76 s up, no freeze on the small layer).
    expect(down["t"] - narrow_at <= ISSUE_DOWN_SECONDS, f"camera_small within {ISSUE_DOWN_SECONDS:.0f} s of the drop "
           f"({down['t'] - narrow_at:.2f} s)")
    expect(up["t"] - wide_again_at <= ISSUE_UP_SECONDS, f"camera_big within {ISSUE_UP_SECONDS:.0f} s of the return "
           f"({up['t'] - wide_again_at:.2f} s)")
    expect(longest <= ISSUE_FREEZE_SECONDS, f"no freeze over {ISSUE_FREEZE_SECONDS * 1000:.0f} ms on the small layer "
           f"(longest {longest:.3f} s)")
    # The issue's 48 packets/s throughout, per second of the sender's audio: what was sent got
    # through (docs/network.md, "Audio through a step down"). Per second of arrival the count dips
    # by the packets the tbf's queue holds across a window's edge at the drop, before any feedback
    # can reach the server: half the rate there says the audio never stalled.
    expect(sent_lowest >= ISSUE_AUDIO_RATE, f"audio at {ISSUE_AUDIO_RATE} packets/s or more arrived in every 1 s window of send time "
           f"through the step (lowest {sent_lowest:.1f})")
    expect(min(rates, default=0) >= AUDIO_FLOOR, f"audio arrivals at {AUDIO_FLOOR:.0f} packets/s or more in every 1 s window "
           f"of arrival time (lowest {min(rates, default=0):.1f})")
    return {"narrow_at": narrow_at, "wide_again_at": wide_again_at, "end": end}


def pause(lab, page, rate=150_000):
    """`rate` (150 kbit/s: below the bot's small layer plus audio) until the video pauses and 6 s
    more, then unlimited until it resumes."""
    narrow_at = time.time()
    lab.limit(rate)
    paused = wait_for(page, f"layer_switched none (the video paused) within 20 s of the drop to {rate // 1000} kbit/s",
                      lambda r: r.switch(narrow_at, "none"), 20)
    time.sleep(6)
    queue = tbf_counts(lab)
    back_at = time.time()
    lab.unlimit()
    resumed = wait_for(page, "the video resumed (layer_switched from none) within 25 s of the link's return",
                       lambda r: r.switch(back_at, "camera_small", "none") or r.switch(back_at, "camera_big", "none"), 25)
    frames_at_resume = Recording(page).last()["frames"]
    wait_for(page, "frames decoded after the resume", lambda r: r.last()["frames"] >= frames_at_resume + 15 or None, 15)

    r = Recording(page)
    held = r.between(paused["t"] + 1, back_at)
    frames_while_paused = held[-1]["frames"] - held[0]["frames"] if len(held) > 1 else 0
    audio_paused = (held[-1]["audio"] - held[0]["audio"]) / max(0.001, held[-1]["t"] - held[0]["t"]) if len(held) > 1 else 0.0
    rates = r.audio_rates(paused["t"] + 1, back_at)
    concealed, samples = r.concealment(paused["t"] + 1, back_at)
    frames_at_return = max((s["frames"] for s in r.samples if s["t"] < back_at), default=0)
    first_frame = next(s["t"] for s in r.samples if s["t"] >= back_at and s["frames"] > frames_at_return)
    print(f"network lab (Chromium), {rate // 1000} kbit/s: " + "paused (layer_switched none) %.2f s after the limit; while paused %.1f s: %d frames,"
          " %.1f audio packets/s, lowest 1 s window %.1f, %.2f %% of samples concealed"
          % (paused["t"] - narrow_at, back_at - paused["t"], frames_while_paused, audio_paused, min(rates, default=0),
             100.0 * concealed / max(1, samples)))
    print("  unlimited again: resumed on %s %.2f s after the link's return, new frames seen %.2f s after"
          % (resumed.get("layer"), resumed["t"] - back_at, first_frame - back_at))
    print("  the tbf (the step above and this phase): " + queue)
    expect(audio_paused >= AUDIO_FLOOR, f"audio continued while the video was paused ({audio_paused:.1f} packets/s)")
    ok(f"the video paused under {rate // 1000} kbit/s with an event and resumed after the link's return")


def run(lab, server, driver, bot):
    page = Tab.joined(driver, server, "the browser (in its namespace)", CHANNEL, "web", SETUP_JS)
    wait_for(page, "the browser decodes the bot's camera_big", lambda r: r.first_width(0, 640), WAIT_SECONDS)
    playing = page.run(PLAY_JS)
    expect(playing == ["audio", "video"], f"the browser plays the bot's audio and video ({playing})")
    wait_for(page, "the browser counts received audio samples", lambda r: r.last().get("samples") or None, WAIT_SECONDS)
    ok("the browser decodes 640-wide frames of the bot's camera on an unlimited link")
    step(lab, page)
    pause(lab, page)


def dump(driver):
    """Each window's switches and last samples (test_browser_lab_loss.py has two)."""
    for handle in driver.window_handles:
        r = Recording(Tab(driver, handle, "browser"))
        print("switches: %s" % r.switches)
        print("last samples: %s" % r.samples[-8:])


# The publisher beside the server: simulcast camera_big and a tone, subscribing to nothing.
BOT_ARGS = ("--desc", "camera_big", "--no-subscribe", "--stats-interval", "5")


def main():
    return run_browser_lab_test("browser lab step down and pause", run, CHANNEL, "cam", BOT_ARGS, wait_seconds=WAIT_SECONDS, dump=dump)


if __name__ == "__main__":
    sys.exit(main())
