// SRTC web SDK: local tracks (what I publish) and remote tracks (what others publish).

import { Emitter } from './emitter.js';

/**
 * A track I publish: a browser `MediaStreamTrack` with its description. `id` is the server's
 * track id once published. Events: `didMute`, `didUnmute`, `didEnd` (unpublished or left).
 */
export class LocalTrack extends Emitter {
  constructor(mediaStreamTrack, { desc, simulcast = false, scalabilityMode = null, layers = [], muted = false } = {}) {
    super();
    /** The browser track being sent. */
    this.mediaStreamTrack = mediaStreamTrack;
    /** `audio` or `video`. */
    this.kind = mediaStreamTrack.kind;
    /** `mic`, `camera_big`, `screen` or a custom description. */
    this.desc = desc;
    /** Whether the camera is sent as simulcast layers (`h` = camera_big, `m` = camera_medium from 960 pixels up, `l` = camera_small). */
    this.simulcast = simulcast;
    /** The SVC mode of a scalable camera (`'L3T3_KEY'`): one stream whose spatial layers are `layers`; or null. */
    this.scalabilityMode = scalabilityMode;
    /** The layers announced to the server (`[{rid, desc, width, height, maxBitrate}]`). */
    this.layers = layers;
    this.muted = muted;
    /** The server's track id, set when published. */
    this.id = null;
    /** The server's `TrackInfo`, set when published. */
    this.info = null;
    /** The `RTCRtpTransceiver` on the publish connection. */
    this.transceiver = null;
  }

  /** Whether the server accepted the track and it is not unpublished. */
  get isPublished() { return this.id !== null; }

  /** The `RTCRtpSender` that sends it. */
  get sender() { return this.transceiver?.sender ?? null; }

  _published(info) {
    this.id = info.id;
    this.info = info;
  }

  _setMuted(muted) {
    if (this.muted === muted) return;
    this.muted = muted;
    if (this.info) this.info = { ...this.info, muted };
    this.emit(muted ? 'didMute' : 'didUnmute', this);
  }

  _ended() {
    if (this.id === null) return;
    this.id = null;
    this.emit('didEnd', this);
  }
}

/**
 * A track a remote user publishes. Created from `TrackInfo` when it appears in the channel;
 * its browser `MediaStreamTrack` is bound once subscribed (`didBindRtcTrack`).
 *
 * Events: `didUpdateInfo(info)`, `didMute`, `didUnmute`, `didEnd`, `didBindRtcTrack`.
 */
export class RemoteTrack extends Emitter {
  #stream = null;

  constructor(info, adaptive = null) {
    super();
    /** The server's `TrackInfo` (`{id, uid, kind, desc, muted, layers, codec}`). */
    this.info = info;
    /** The channel's adaptive stream (`adaptiveStream` option), or null. */
    this._adaptive = adaptive;
    /** Whether adaptive stream paused this video at the server: none of its elements is visible. */
    this.isAdaptivePaused = false;
    /** Whether I subscribe to it. */
    this.isSubscribed = false;
    /** The simulcast layer I asked for (`camera_big` / `camera_small`), or `null` for the best one. */
    this.requestedLayer = null;
    /** The layer the server reported delivering (`didSwitchLayer`), when known; `'none'` while
     *  it sends no video for lack of bandwidth (`isPausedForBandwidth`). */
    this.currentLayer = null;
    /** The received browser track, once bound. */
    this.mediaStreamTrack = null;
    /** The subscribe connection's mid that carries it, once bound. */
    this.mid = null;
    /** Whether no video arrived for the receive timeout (see `didChangeReceiveStreamStatus`). */
    this.isReceiveTimedOut = false;
    /** Whether the track was removed from the channel. */
    this.isEnded = false;
  }

  get id() { return this.info.id; }
  get uid() { return this.info.uid; }
  get kind() { return this.info.kind; }
  get desc() { return this.info.desc; }
  get muted() { return this.info.muted; }
  get layers() { return this.info.layers ?? []; }
  /** Whether the server paused this video because my bandwidth cannot carry its smallest layer;
   *  it resumes by itself (`didSwitchLayer` from `'none'`). */
  get isPausedForBandwidth() { return this.currentLayer === 'none'; }
  get codec() { return this.info.codec; }

  /** A `MediaStream` holding the bound track (for `video.srcObject`), or `null` before binding. */
  get mediaStream() {
    if (!this.mediaStreamTrack) return null;
    if (!this.#stream) this.#stream = new MediaStream([this.mediaStreamTrack]);
    return this.#stream;
  }

  /**
   * Shows the track in a `<video>` / `<audio>` element (now, or once bound); returns the element.
   * With the channel's `adaptiveStream`, the element's size and visibility pick the video's layer.
   */
  attach(element) {
    const set = () => {
      element.srcObject = this.mediaStream;
      const play = element.play?.();
      if (play?.catch) play.catch(() => {});
    };
    if (this.mediaStreamTrack) set();
    else this.waitFor('didBindRtcTrack').then(set);
    this._adaptive?.observe(this, element);
    return element;
  }

  /** Stops showing the track in `element` (attached with `attach`); returns the element. */
  detach(element) {
    this._adaptive?.unobserve(this, element);
    if (element.srcObject && element.srcObject === this.#stream) element.srcObject = null;
    return element;
  }

  _update(info) {
    const wasMuted = this.info.muted;
    this.info = info;
    this.emit('didUpdateInfo', info);
    if (wasMuted !== info.muted) this.emit(info.muted ? 'didMute' : 'didUnmute', this);
  }

  _bind(mediaStreamTrack, mid) {
    if (this.mediaStreamTrack === mediaStreamTrack && this.mid === mid) return false;
    this.mediaStreamTrack = mediaStreamTrack;
    this.mid = mid;
    this.#stream = null;
    this.emit('didBindRtcTrack', this);
    return true;
  }

  _unbind() {
    this.mediaStreamTrack = null;
    this.mid = null;
    this.#stream = null;
    this.isReceiveTimedOut = false;
  }

  _end() {
    if (this.isEnded) return;
    this.isEnded = true;
    this.isSubscribed = false;
    this._adaptive?.forget(this.id);
    this._unbind();
    this.emit('didEnd', this);
  }
}
