// SMeeting web SDK: remote audio. Every member's audio track is subscribed as it appears and
// played by an `<audio>` element the SDK owns (not in the page); playback can be muted for
// everyone (the speaker switch) or per member, without touching the subscriptions.

import { TrackDesc } from './models.js';

export class RemoteAudio {
  #engine;
  /** track id → {track, element} */
  #players = new Map();
  /** uids whose playback is muted. */
  #muted = new Set();
  #sinkId = '';
  masterMuted = false;

  constructor(engine) {
    this.#engine = engine;
  }

  /** Subscribes every audio track of `channel` and plays it once bound. */
  watch(channel) {
    return [
      channel.on('didAddTrack', (user, track) => {
        if (track.kind !== 'audio') return;
        channel.subscribe(track).catch((e) => this.#engine._log('warn', `audio of ${track.uid}: ${e.message}`));
      }),
      channel.on('trackDidBindRtcTrack', (track) => {
        if (track.kind === 'audio') this.#play(track);
      }),
      channel.on('didRemoveTrack', (user, track) => this.#stopPlayer(track.id)),
    ];
  }

  async subscribe(uid, desc = TrackDesc.mic) {
    const channel = this.#engine.channel;
    const track = channel.remoteTracksOf(uid).find((t) => t.desc === desc && t.kind === 'audio');
    if (!track) throw new Error(`${uid} has no ${desc} track`);
    if (!track.isSubscribed) await channel.subscribe(track);
  }

  async unsubscribe(uid, desc = TrackDesc.mic) {
    const channel = this.#engine.channel;
    const track = channel.remoteTracksOf(uid).find((t) => t.desc === desc && t.kind === 'audio');
    if (!track?.isSubscribed) return;
    await channel.unsubscribe(track);
    this.#stopPlayer(track.id);
  }

  setMasterMuted(muted) {
    this.masterMuted = muted;
    this.#applyMutes();
  }

  setMuted(uid, muted) {
    if (muted) this.#muted.add(uid); else this.#muted.delete(uid);
    this.#applyMutes();
  }

  isMuted(uid) { return this.#muted.has(uid); }

  async setSink(deviceId) {
    this.#sinkId = deviceId ?? '';
    await Promise.all([...this.#players.values()].map((p) => p.element.setSinkId?.(this.#sinkId)));
  }

  /** Stops every player (the channel is gone); per-member mutes stay for the next channel. */
  detach() {
    for (const id of [...this.#players.keys()]) this.#stopPlayer(id);
  }

  /** Stops every player and forgets per-member mutes (the meeting was exited). */
  reset() {
    this.detach();
    this.#muted.clear();
  }

  #play(track) {
    let player = this.#players.get(track.id);
    if (!player) {
      const element = new Audio();
      element.autoplay = true;
      player = { track, element };
      this.#players.set(track.id, player);
      if (this.#sinkId) element.setSinkId?.(this.#sinkId).catch(() => {});
    }
    player.element.srcObject = track.mediaStream;
    player.element.muted = this.masterMuted || this.#muted.has(track.uid);
    player.element.play().catch((e) => this.#engine._log('info', `audio playback of ${track.uid} waits for a user gesture: ${e.message}`));
  }

  #stopPlayer(trackId) {
    const player = this.#players.get(trackId);
    if (!player) return;
    player.element.pause();
    player.element.srcObject = null;
    this.#players.delete(trackId);
  }

  #applyMutes() {
    for (const { track, element } of this.#players.values()) element.muted = this.masterMuted || this.#muted.has(track.uid);
  }
}
