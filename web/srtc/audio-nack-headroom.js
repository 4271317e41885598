// SRTC web SDK: room in the audio jitter buffer for a NACK's resend (docs/network.md, "RED and
// Chromium's jitter buffer"). A subscribed audio stream in RED (RFC 2198, one redundant block)
// has each single lost packet rebuilt from the next one at once, so Chromium's NetEq sees no late
// packet and keeps its target delay near its floor (40 ms through the lab's 40 ms round trip,
// against 80-121 ms for the same stream in plain Opus, where the late resends raise it). Two or
// more packets lost in a row are then beyond RED, and their resends (one round trip plus one
// packet time per lost packet after the original) come after their playout turn: concealed,
// more than without RED. So while the subscriber NACKs audio, each RED audio receiver gets a
// `jitterBufferTarget` (a minimum; NetEq still goes higher on its own) of the round trip plus
// `runMs` (a run of five 20 ms packets lost, a 100 ms fade), and none again after `holdMs` without new NACKs.

export class AudioNackHeadroom {
  #channel;
  /** mid → {nacks, lastNack (ms), target (ms) | null} */
  #streams = new Map();
  #polling = false;
  static runMs = 100;
  static holdMs = 10000;
  static maxMs = 400;

  constructor(channel) {
    this.#channel = channel;
  }

  reset() {
    this.#streams.clear();
  }

  /** Called every second by the channel. */
  tick() {
    const pc = this.#channel._subscriber?.pc;
    if (!pc || this.#polling || typeof RTCRtpReceiver === 'undefined' || !('jitterBufferTarget' in RTCRtpReceiver.prototype)) return;
    this.#polling = true;
    pc.getStats().then((report) => this.#evaluate(pc, report)).catch(() => {}).finally(() => { this.#polling = false; });
  }

  #evaluate(pc, report) {
    const now = performance.now();
    let rtt = null;
    report.forEach((s) => {
      if (s.type === 'transport' && s.selectedCandidatePairId) rtt = report.get(s.selectedCandidatePairId)?.currentRoundTripTime ?? rtt;
    });
    const red = redMids(pc.localDescription?.sdp ?? '');
    report.forEach((s) => {
      if (s.type !== 'inbound-rtp' || s.kind !== 'audio' || s.mid == null || !red.has(s.mid)) return;
      const receiver = pc.getTransceivers().find((t) => t.mid === s.mid)?.receiver;
      if (!receiver) return;
      const nacks = s.nackCount ?? 0;
      let w = this.#streams.get(s.mid);
      if (!w || nacks < w.nacks) { w = { nacks, lastNack: -Infinity, target: null }; this.#streams.set(s.mid, w); }
      if (nacks > w.nacks) w.lastNack = now;
      w.nacks = nacks;
      const want = now - w.lastNack < AudioNackHeadroom.holdMs
        ? Math.min(AudioNackHeadroom.maxMs, Math.round((rtt ?? 0.1) * 1000 + AudioNackHeadroom.runMs)) : null;
      // Steps under 20 ms are the round trip's noise: left alone.
      if (want === w.target || (want !== null && w.target !== null && Math.abs(want - w.target) < 20)) return;
      try { receiver.jitterBufferTarget = want; w.target = want; } catch { /* a receiver that is gone */ }
    });
  }
}

/** The mids of the answer's audio sections that kept `red/48000/2`. */
export function redMids(sdp) {
  const mids = new Set();
  for (const section of sdp.split(/\r?\nm=/).slice(1)) {
    if (!section.startsWith('audio') || !/a=rtpmap:\d+ red\/48000/i.test(section)) continue;
    const mid = section.match(/a=mid:(\S+)/);
    if (mid) mids.add(mid[1]);
  }
  return mids;
}
