// SRTC web SDK: per-track receive status (`didChangeReceiveStreamStatus`). A subscribed video
// that decodes no frame for `receiveTimeoutMs` is reported timed out; when frames come again
// (or the first frame arrives after subscribing) a recovery is reported. Judged per track from
// the subscribe connection's `inbound-rtp` statistics, never from the link's quality level.

export class ReceiveMonitor {
  #channel;
  /** track id → {frames, lastProgress (ms), reported: null | boolean} */
  #watched = new Map();
  #polling = false;

  constructor(channel) {
    this.#channel = channel;
  }

  /** A video subscription started: its clock starts at the subscribe. */
  subscribed(track) {
    if (track.kind !== 'video') return;
    this.#watched.set(track.id, { frames: 0, lastProgress: performance.now(), reported: null });
  }

  /** The track's receiver was bound: frames count from here. */
  bound(track) {
    const w = this.#watched.get(track.id);
    if (w) { w.frames = 0; w.lastProgress = performance.now(); }
  }

  unsubscribed(track) {
    this.#watched.delete(track.id);
  }

  reset() {
    this.#watched.clear();
  }

  /** Called every second by the channel. */
  tick() {
    const pc = this.#channel._subscriber?.pc;
    if (!pc || this.#watched.size === 0 || this.#polling) return;
    this.#polling = true;
    pc.getStats().then((report) => this.#evaluate(report)).catch(() => {}).finally(() => { this.#polling = false; });
  }

  #evaluate(report) {
    const now = performance.now();
    const frames = new Map();
    report.forEach((s) => {
      if (s.type !== 'inbound-rtp' || s.kind !== 'video') return;
      const trackId = (s.mid != null && this.#channel._subscriber?.trackIdForMid(s.mid))
        || this.#channel.remoteTracks.find((t) => t.mediaStreamTrack && t.mediaStreamTrack.id === s.trackIdentifier)?.id;
      if (trackId) frames.set(trackId, s.framesDecoded ?? 0);
    });
    const timeout = this.#channel.options.receiveTimeoutMs;
    for (const [trackId, w] of this.#watched) {
      const track = this.#channel.remoteTrack(trackId);
      if (!track) { this.#watched.delete(trackId); continue; }
      const decoded = frames.get(trackId) ?? 0;
      if (track.isAdaptivePaused) {
        // Paused on purpose (adaptive stream): no frames is not a timeout; the clock restarts at resume.
        w.frames = decoded;
        w.lastProgress = now;
        continue;
      }
      if (decoded > w.frames) {
        w.frames = decoded;
        w.lastProgress = now;
        if (w.reported !== false) this.#report(track, w, false);
      } else {
        if (decoded < w.frames) w.frames = decoded; // a new receiver restarted the count
        if (now - w.lastProgress >= timeout && w.reported !== true) this.#report(track, w, true);
      }
    }
  }

  #report(track, w, timedOut) {
    w.reported = timedOut;
    track.isReceiveTimedOut = timedOut;
    this.#channel.emit('didChangeReceiveStreamStatus', { uid: track.uid, trackId: track.id, desc: track.desc, timedOut });
  }
}
