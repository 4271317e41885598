// SRTC web SDK: adaptive stream (channel option `adaptiveStream`, docs/sdk-web.md). Each remote
// video's attached elements say what it needs: the layer is the smallest whose width covers the
// largest visible element (CSS pixels × devicePixelRatio), and a video with no visible element (all
// hidden, scrolled out, detached, or the page in the background) is paused at the server. Both go
// through `set_layer` (docs/protocol.md): a layer's desc, or `"none"` to pause. Changes are
// debounced so that a resize in progress sends one request.

/** The `set_layer` value that pauses a subscription's video (docs/protocol.md). */
export const PAUSED_LAYER = 'none';

/**
 * The layer a video shown `width` device pixels wide needs: the smallest layer at least that wide,
 * else the widest; `null` when there is nothing to choose (fewer than two layers with widths).
 * @param {{desc: string, width?: number}[]} layers the track's layers.
 */
export function layerForWidth(layers, width) {
  const sized = layers.filter((l) => l.desc && l.width > 0).sort((a, b) => a.width - b.width);
  if (sized.length < 2) return null;
  return (sized.find((l) => l.width >= width) ?? sized[sized.length - 1]).desc;
}

export class AdaptiveStream {
  #channel;
  #debounceMs;
  /** track id → {elements: Map<element, {width, intersecting}>, timer, applied} */
  #tracks = new Map();
  #resize;
  #intersection;
  #onVisibility = () => { for (const id of this.#tracks.keys()) this.#schedule(id); };

  /** @param {{debounceMs?: number}} options */
  constructor(channel, { debounceMs = 100 } = {}) {
    this.#channel = channel;
    this.#debounceMs = debounceMs;
    this.#resize = new ResizeObserver((entries) => {
      for (const entry of entries) {
        const box = entry.contentRect;
        this.#update(entry.target, (state) => { state.width = box.width; state.height = box.height; });
      }
    });
    this.#intersection = new IntersectionObserver((entries) => {
      for (const entry of entries) this.#update(entry.target, (state) => { state.intersecting = entry.isIntersecting; });
    });
    document.addEventListener('visibilitychange', this.#onVisibility);
  }

  /** `element` now shows `track` (a subscribed remote video). */
  observe(track, element) {
    if (track.kind !== 'video') return;
    let entry = this.#tracks.get(track.id);
    if (!entry) {
      entry = { elements: new Map(), timer: null, applied: undefined };
      this.#tracks.set(track.id, entry);
    }
    if (entry.elements.has(element)) return;
    entry.elements.set(element, { width: element.clientWidth, height: element.clientHeight, intersecting: false });
    element.__srtcAdaptiveTrack = track.id;
    this.#resize.observe(element);
    this.#intersection.observe(element);
    this.#schedule(track.id);
  }

  /** `track` was subscribed: what its elements need applies now. */
  subscribed(track) {
    const entry = this.#tracks.get(track.id);
    if (!entry) return;
    entry.applied = undefined;
    this.#schedule(track.id);
  }

  /** `track`'s subscription ended: its elements stay observed for a later subscription. */
  unsubscribed(track) {
    const entry = this.#tracks.get(track.id);
    if (entry) { clearTimeout(entry.timer); entry.applied = undefined; }
    track.isAdaptivePaused = false;
  }

  /** `element` no longer shows `track`. */
  unobserve(track, element) {
    const entry = this.#tracks.get(track.id);
    if (!entry?.elements.delete(element)) return;
    this.#resize.unobserve(element);
    this.#intersection.unobserve(element);
    delete element.__srtcAdaptiveTrack;
    this.#schedule(track.id);
  }

  /** The subscription ended: forget its elements (without a request). */
  forget(trackId) {
    const entry = this.#tracks.get(trackId);
    if (!entry) return;
    clearTimeout(entry.timer);
    for (const element of entry.elements.keys()) {
      this.#resize.unobserve(element);
      this.#intersection.unobserve(element);
      delete element.__srtcAdaptiveTrack;
    }
    this.#tracks.delete(trackId);
    const track = this.#channel.remoteTrack(trackId);
    if (track) track.isAdaptivePaused = false;
  }

  close() {
    for (const id of [...this.#tracks.keys()]) this.forget(id);
    this.#resize.disconnect();
    this.#intersection.disconnect();
    document.removeEventListener('visibilitychange', this.#onVisibility);
  }

  // MARK: - Internals

  #update(element, change) {
    const id = element.__srtcAdaptiveTrack;
    const state = id && this.#tracks.get(id)?.elements.get(element);
    if (!state) return;
    change(state);
    this.#schedule(id);
  }

  #schedule(trackId) {
    const entry = this.#tracks.get(trackId);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => { entry.timer = null; this.#apply(trackId); }, this.#debounceMs);
  }

  /** The layer `trackId` needs now: `PAUSED_LAYER`, a layer's desc, or null (the best). */
  #wanted(entry, track) {
    if (document.visibilityState === 'hidden') return PAUSED_LAYER;
    let width = 0;
    for (const [element, state] of entry.elements) {
      const shown = state.intersecting && state.width > 0 && state.height > 0 && element.isConnected;
      if (shown) width = Math.max(width, state.width);
    }
    if (width === 0) return PAUSED_LAYER;
    return layerForWidth(track.layers, width * (globalThis.devicePixelRatio || 1));
  }

  async #apply(trackId) {
    const entry = this.#tracks.get(trackId);
    const track = this.#channel.remoteTrack(trackId);
    if (!entry || !track || !track.isSubscribed || !this.#channel.isJoined) return;
    const layer = this.#wanted(entry, track);
    if (layer === entry.applied) return;
    entry.applied = layer;
    track.isAdaptivePaused = layer === PAUSED_LAYER;
    try {
      await this.#channel._request('set_layer', { track_id: trackId, layer });
      if (layer !== PAUSED_LAYER) track.requestedLayer = layer;
      this.#channel._log('debug', `adaptive stream: ${trackId} → ${layer ?? 'best'}`);
    } catch (error) {
      if (entry.applied === layer) entry.applied = undefined;
      this.#channel._log('warn', `adaptive stream: set_layer ${trackId} ${layer}: ${error.message ?? error}`);
    }
  }
}
