// SMeeting web SDK: remote video by view. Views are bound to a member and a video (camera or
// screen), counted, and follow the member's track as it comes and goes; a camera subscription
// asks for the simulcast layer its biggest view needs.

import { SMeetingError } from './errors.js';
import { TrackDesc } from './models.js';

/** A view taller than the small layer by this factor (in device pixels) asks for `camera_big`. */
const BIG_LAYER_FACTOR = 1.5;
/** Height of `camera_small` when the publisher did not say (a quarter of 720p). */
const DEFAULT_SMALL_HEIGHT = 180;

/** The channel track description and simulcast layer behind a meeting `TrackDesc`. */
function target(trackDesc) {
  switch (trackDesc) {
    case TrackDesc.cameraBig: return { desc: TrackDesc.cameraBig, layer: TrackDesc.cameraBig };
    case TrackDesc.cameraSmall: return { desc: TrackDesc.cameraBig, layer: TrackDesc.cameraSmall };
    case TrackDesc.screen: return { desc: TrackDesc.screen, layer: null };
    default: throw SMeetingError.internal(`${trackDesc} is not a video track`);
  }
}

export class RemoteVideoViews {
  #engine;
  /** `uid|desc` → {uid, desc, views: Map<view, {layer, bySize}>, track, observer, pending} */
  #entries = new Map();

  constructor(engine) {
    this.#engine = engine;
  }

  /** Follows a channel's tracks: a member's new track of a watched kind is subscribed and shown. */
  watch(channel) {
    return [
      channel.on('didAddTrack', (user, track) => {
        const entry = this.#entries.get(`${track.uid}|${track.desc}`);
        if (entry && entry.views.size) this.#bind(entry, track).catch((e) => this.#engine._log('warn', `video of ${track.uid}: ${e.message}`));
      }),
      channel.on('didRemoveTrack', (user, track) => {
        const entry = this.#entries.get(`${track.uid}|${track.desc}`);
        if (entry?.track === track) {
          entry.track = null;
          for (const view of entry.views.keys()) view.srcObject = null;
        }
      }),
      channel.on('trackDidBindRtcTrack', (track) => {
        const entry = this.#entries.get(`${track.uid}|${track.desc}`);
        if (entry?.track === track) this.#show(entry);
      }),
    ];
  }

  async start(view, uid, trackDesc, { layerBySize }) {
    const { desc, layer } = target(trackDesc);
    const key = `${uid}|${desc}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { uid, desc, views: new Map(), track: null, observer: null };
      this.#entries.set(key, entry);
    }
    view.muted = true;
    view.playsInline = true;
    view.autoplay = true;
    entry.views.set(view, { layer, bySize: Boolean(layerBySize && layer) });
    if (layerBySize && layer) {
      entry.observer ??= new ResizeObserver(() => this.#applyLayer(entry).catch(() => {}));
      entry.observer.observe(view);
    }
    const track = await this.#find(uid, desc, trackDesc);
    if (!track) {
      // Not published now: the view stays bound and shows the track when it appears.
      return null;
    }
    await this.#bind(entry, track);
    return track;
  }

  async stop(view, uid, trackDesc) {
    const { desc } = target(trackDesc);
    const entry = this.#entries.get(`${uid}|${desc}`);
    if (!entry || !entry.views.delete(view)) return;
    entry.observer?.unobserve(view);
    view.srcObject = null;
    if (entry.views.size) {
      await this.#applyLayer(entry);
      return;
    }
    entry.observer?.disconnect();
    this.#entries.delete(`${uid}|${desc}`);
    const channel = this.#engine.channel;
    if (entry.track?.isSubscribed && channel?.isJoined) await channel.unsubscribe(entry.track).catch(() => {});
  }

  async subscribe(uid, trackDesc) {
    const { desc } = target(trackDesc);
    const track = await this.#find(uid, desc, trackDesc);
    if (!track) throw SMeetingError.internal(`${uid} has no ${trackDesc} track`);
    const layer = track.layers.length ? target(trackDesc).layer : null;
    const channel = this.#engine.channel;
    if (!track.isSubscribed) await channel.subscribe(track, layer ? { layer } : {});
    else if (layer && track.requestedLayer !== layer) await channel.setLayer(track, layer);
    return track;
  }

  async unsubscribe(uid, trackDesc) {
    const { desc } = target(trackDesc);
    const channel = this.#engine.channel;
    const track = channel?.remoteTracksOf(uid).find((t) => t.desc === desc);
    if (track?.isSubscribed) await channel.unsubscribe(track);
  }

  /** The channel is gone: views stay bound and show the next channel's tracks. */
  detach() {
    for (const entry of this.#entries.values()) {
      entry.track = null;
      for (const view of entry.views.keys()) view.srcObject = null;
    }
  }

  /** Forgets every view (the meeting was exited). */
  reset() {
    for (const entry of this.#entries.values()) {
      entry.observer?.disconnect();
      for (const view of entry.views.keys()) view.srcObject = null;
    }
    this.#entries.clear();
  }

  /** The member's channel track; waits up to `trackWaitMs` when the meeting says it is published. */
  async #find(uid, desc, trackDesc) {
    const channel = this.#engine.channel;
    if (!channel) return null;
    const existing = () => channel.remoteTracksOf(uid).find((t) => t.desc === desc && !t.isEnded) ?? null;
    const found = existing();
    if (found) return found;
    const announced = this.#engine._users.get(uid)?.trackDescs?.includes(trackDesc);
    if (!announced) return null;
    try {
      await channel.waitFor('didAddTrack', (user, track) => track.uid === uid && track.desc === desc, this.#engine.options.trackWaitMs);
    } catch (e) {
      return existing();
    }
    return existing();
  }

  /** Subscribes `track` for `entry`'s views (once: a bind in flight for the same track is shared) and shows it. */
  #bind(entry, track) {
    if (entry.track === track && entry.binding) return entry.binding;
    entry.track = track;
    const channel = this.#engine.channel;
    const binding = (async () => {
      const layer = this.#wantedLayer(entry);
      if (!track.isSubscribed) await channel.subscribe(track, layer ? { layer } : {});
      else if (layer && track.requestedLayer !== layer) await channel.setLayer(track, layer);
      this.#show(entry);
    })();
    entry.binding = binding;
    binding.catch(() => {}).finally(() => { if (entry.binding === binding) entry.binding = null; });
    return binding;
  }

  #show(entry) {
    const stream = entry.track?.mediaStream;
    if (!stream) return;
    for (const view of entry.views.keys()) {
      if (view.srcObject !== stream) view.srcObject = stream;
      view.play?.()?.catch?.(() => {});
    }
  }

  /** `camera_big` if any view asks for it or is big enough to need it; `camera_small` otherwise. */
  #wantedLayer(entry) {
    if (entry.desc !== TrackDesc.cameraBig || !entry.track?.layers.length) return null;
    const small = entry.track?.layers.find((l) => l.desc === TrackDesc.cameraSmall);
    const threshold = (small?.height || DEFAULT_SMALL_HEIGHT) * BIG_LAYER_FACTOR;
    const ratio = globalThis.devicePixelRatio || 1;
    for (const [view, want] of entry.views) {
      if (want.bySize ? view.clientHeight * ratio > threshold : want.layer === TrackDesc.cameraBig) return TrackDesc.cameraBig;
    }
    return TrackDesc.cameraSmall;
  }

  async #applyLayer(entry) {
    const track = entry.track;
    const channel = this.#engine.channel;
    if (!track?.isSubscribed || !channel?.isJoined) return;
    const layer = this.#wantedLayer(entry);
    if (layer && track.requestedLayer !== layer) await channel.setLayer(track, layer);
  }
}
