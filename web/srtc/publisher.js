// SRTC web SDK: the publish transport. The browser offers one sendonly m-section per track
// (BUNDLE, rtcp-mux); the server answers ICE-lite with its candidate (docs/protocol.md, `publish`).
// Negotiations run one at a time.

import { asSRTCError } from './errors.js';
import { SIMULCAST_RIDS } from './models.js';
import { retireConnection } from './path-monitor.js';

/** Bitrates of the simulcast layers, bits per second (`h` full size, `m` half, `l` a quarter of each side). */
const LAYER_BITRATES = { h: 1_500_000, m: 500_000, l: 200_000 };
/** How much smaller each simulcast layer is than the capture, per side. */
const LAYER_SCALES = { h: 1, m: 2, l: 4 };
/**
 * A capture whose longer side has at least this many pixels is sent as three simulcast layers
 * (1280×720: 1280×720, 640×360, 320×180, as LiveKit sends it), a smaller one as two (`h`, `l`).
 */
const THREE_LAYERS_FROM = 960;

export class Publisher {
  #channel;
  #queue = Promise.resolve();
  /**
   * Transceivers of publishes the server refused: rolled back, inactive and without a track,
   * kept for the next tracks of their kind. Never stopped: Chromium keeps a stopped transceiver's
   * m-section in the next offer and gives that offer's new transceiver none (no mid, so the
   * next publish would fail too).
   */
  #spares = [];

  constructor(channel, rtcConfiguration) {
    this.#channel = channel;
    this.rtcConfiguration = rtcConfiguration;
    /** The `RTCPeerConnection`, once something was published. */
    this.pc = null;
  }

  /** Runs `task` after every earlier negotiation. */
  #serial(task) {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  #ensurePc() {
    if (!this.pc) this.pc = this.#makePc();
    return this.pc;
  }

  #makePc() {
    const pc = new RTCPeerConnection(this.rtcConfiguration);
    pc.addEventListener('iceconnectionstatechange', () => {
      if (this.pc === pc) this.#channel._transportStateChanged('publish', pc.iceConnectionState);
    });
    return pc;
  }

  /**
   * Publishes `localTracks` (LocalTrack objects) in one offer; sets their server ids.
   * On refusal nothing stays negotiated and the call rejects with the server's error.
   */
  publish(localTracks) {
    return this.#serial(async () => {
      const pc = this.#ensurePc();
      const added = [];
      try {
        for (const t of localTracks) {
          t.transceiver = await this.#reuseSpare(t);
          if (!t.transceiver) {
            const init = { direction: 'sendonly', streams: [new MediaStream([t.mediaStreamTrack])] };
            if (t.simulcast) {
              init.sendEncodings = simulcastLayers(t.mediaStreamTrack).map(({ rid, maxBitrate }) =>
                (LAYER_SCALES[rid] > 1 ? { rid, maxBitrate, scaleResolutionDownBy: LAYER_SCALES[rid] } : { rid, maxBitrate }));
              // VP9 and AV1 encodings without a scalabilityMode are not simulcast in Chromium 156:
              // a camera_small subscriber got 1280-wide video of either codec (VP9: one two-layer
              // SVC stream on rid h; interop/test_browser_svc_codec_simulcast.py). A one-spatial-layer
              // mode on each makes them independent streams.
              if (SIMULCAST_NEEDS_MODE.has((this.#channel.options.preferredVideoCodec ?? '').toLowerCase())) {
                for (const encoding of init.sendEncodings) encoding.scalabilityMode = 'L1T3';
              }
            } else if (t.scalabilityMode) {
              init.sendEncodings = [{ scalabilityMode: t.scalabilityMode }];
            }
            t.transceiver = pc.addTransceiver(t.mediaStreamTrack, init);
          }
          if (t.kind === 'video') preferCodec(t.transceiver, this.#channel.options.preferredVideoCodec);
          this.#channel._e2ee?.attachSender(t.transceiver.sender, t.kind);
          t.mediaStreamTrack.enabled = !t.muted;
          added.push(t);
        }
        await pc.setLocalDescription(await pc.createOffer());
      } catch (e) {
        await this.#rollback();
        await this.#setAside(added, true);
        throw asSRTCError(e, 'mediaFailed', 'cannot create the publish offer');
      }
      const tracks = added.map((t) => {
        t.layers = t.simulcast ? simulcastLayers(t.mediaStreamTrack)
          : t.scalabilityMode ? spatialLayers(t.mediaStreamTrack, t.scalabilityMode) : [];
        return {
          mid: t.transceiver.mid,
          kind: t.kind,
          desc: t.desc,
          muted: t.muted,
          layers: t.layers.map((l) => ({ rid: l.rid, desc: l.desc, width: l.width, height: l.height, max_bitrate: l.maxBitrate })),
          ...(this.#channel._e2ee ? { e2ee: true } : {}),
        };
      });
      let response;
      try {
        response = await this.#channel._request('publish', { sdp: pc.localDescription.sdp, tracks });
      } catch (e) {
        await this.#rollback();
        await this.#setAside(added, true);
        throw e;
      }
      // The response lists the new tracks in the order of the request.
      const infos = response.tracks ?? [];
      try {
        if (infos.length !== added.length) throw new Error(`publish answered ${infos.length} tracks for ${added.length}`);
        await pc.setRemoteDescription({ type: 'answer', sdp: response.sdp });
      } catch (e) {
        await this.#rollback();
        // The server made these mids tracks: they are unpublished, and their transceivers only idle.
        await this.#setAside(added, false);
        for (const info of infos) this.#channel._request('unpublish', { track_id: info.id }).catch(() => {});
        throw asSRTCError(e, 'mediaFailed', 'the server\'s publish answer was refused');
      }
      for (const [i, t] of added.entries()) await this.#simulcastModeFor(t, infos[i]?.codec);
      added.forEach((t, i) => t._published(infos[i]));
      return added;
    });
  }

  /**
   * A server with `--video-codecs` may answer a simulcast camera in VP9 or AV1 although another
   * codec was preferred (docs/protocol.md, "Which video codec"): its encodings then get the
   * one-spatial-layer mode they would have had from `preferredVideoCodec`, now that the codec is known.
   */
  async #simulcastModeFor(t, codec) {
    if (!t.simulcast || !SIMULCAST_NEEDS_MODE.has((codec ?? '').toLowerCase())) return;
    const params = t.transceiver.sender.getParameters();
    if (params.encodings.length < 2 || params.encodings.every((e) => e.scalabilityMode)) return;
    for (const encoding of params.encodings) encoding.scalabilityMode = 'L1T3';
    try {
      await t.transceiver.sender.setParameters(params);
    } catch (e) {
      this.#channel._log('warn', `cannot send the ${codec} simulcast encodings as L1T3: ${e.message}`);
    }
  }

  /** Stops sending `localTrack` and renegotiates (the m-section becomes inactive), then `unpublish`. */
  unpublish(localTrack) {
    return this.#serial(async () => {
      const pc = this.pc;
      const transceiver = localTrack.transceiver;
      let offered = false;
      if (pc && transceiver && pc.signalingState === 'stable') {
        try {
          await transceiver.sender.replaceTrack(null);
          transceiver.direction = 'inactive';
          await pc.setLocalDescription(await pc.createOffer());
          offered = true;
        } catch (e) {
          this.#channel._log('warn', `unpublish offer failed: ${e.message}`);
        }
      }
      let response;
      try {
        response = await this.#channel._request('unpublish', { track_id: localTrack.id, ...(offered ? { sdp: pc.localDescription.sdp } : {}) });
      } catch (e) {
        if (offered) await this.#rollback();
        throw e;
      }
      if (!offered) return;
      try {
        if (response?.sdp) await pc.setRemoteDescription({ type: 'answer', sdp: response.sdp });
        else await this.#rollback();
      } catch (e) {
        // The server has unpublished the track; keep the connection usable for the next negotiation.
        this.#channel._log('warn', `the server's unpublish answer was refused: ${e.message}`);
        await this.#rollback();
      }
    });
  }

  /** ICE restart of the publish transport (new credentials in a new offer). */
  restartIce() {
    return this.#serial(async () => {
      const pc = this.pc;
      if (!pc || pc.signalingState !== 'stable') return;
      pc.restartIce();
      await pc.setLocalDescription(await pc.createOffer({ iceRestart: true }));
      let response;
      try {
        response = await this.#channel._request('restart_ice', { transport: 'publish', sdp: pc.localDescription.sdp });
      } catch (e) {
        await this.#rollback();
        throw e;
      }
      if (response?.sdp) await pc.setRemoteDescription({ type: 'answer', sdp: response.sdp });
    });
  }

  /**
   * Moves everything published to a new connection, offered as the publish transport's ICE
   * restart: after the device's address changed, an ICE restart keeps Chromium's old candidate
   * pair, and a new connection has none (docs/network.md, "Addresses that change"). The new connection has one transceiver per m-section
   * of the old one, in the same order (so the same mids: the server keeps its producers and
   * learns the new SSRCs by mid and rid), sending the same tracks with the same encodings; the
   * server takes the new DTLS association (same certificate). Resolves `false` when it cannot
   * (nothing negotiated yet, or the mids would differ): then the caller restarts ICE instead.
   */
  renew() {
    return this.#serial(async () => {
      const old = this.pc;
      if (!old || old.signalingState !== 'stable' || !this.rtcConfiguration.certificates) return false;
      const previous = old.getTransceivers().filter((t) => t.mid != null).sort((a, b) => Number(a.mid) - Number(b.mid));
      if (previous.some((t, i) => t.mid !== String(i))) return false;
      const locals = new Map([...this.#channel._localTracks].filter((t) => t.transceiver).map((t) => [t.transceiver, t]));
      const pc = this.#makePc();
      const moved = [];  // [LocalTrack | null, old transceiver, new transceiver]
      try {
        for (const transceiver of previous) {
          const local = locals.get(transceiver);
          const encodings = transceiver.sender.getParameters().encodings ?? [];
          const sendEncodings = encodings.length > 1 || encodings[0]?.scalabilityMode ? encodings.map(encodingInit) : undefined;
          let next;
          if (local) {
            next = pc.addTransceiver(local.mediaStreamTrack, { direction: 'sendonly', streams: [new MediaStream([local.mediaStreamTrack])], sendEncodings });
            if (local.kind === 'video') preferCodec(next, this.#channel.options.preferredVideoCodec);
            this.#channel._e2ee?.attachSender(next.sender, local.kind);
          } else {
            // Unpublished or set aside: kept inactive so the mids after it stay the same.
            next = pc.addTransceiver(transceiver.receiver.track.kind, { direction: 'inactive', sendEncodings });
          }
          moved.push([local ?? null, transceiver, next]);
        }
        await pc.setLocalDescription(await pc.createOffer());
        if (moved.some(([, before, after]) => before.mid !== after.mid)) throw new Error('the new connection numbered its m-sections differently');
      } catch (e) {
        pc.close();
        this.#channel._log('warn', `cannot make a new publish connection: ${e.message}`);
        return false;
      }
      let response;
      try {
        response = await this.#channel._request('restart_ice', { transport: 'publish', sdp: pc.localDescription.sdp });
        await pc.setRemoteDescription({ type: 'answer', sdp: response.sdp });
      } catch (e) {
        pc.close();
        throw e;
      }
      const spares = new Set(this.#spares);
      this.#spares = [];
      for (const [local, before, after] of moved) {
        if (local) local.transceiver = after;
        else if (spares.has(before)) this.#spares.push(after);
      }
      this.pc = pc;
      retireConnection(old, pc);
      return true;
    });
  }

  /** Closes the connection; the local tracks keep capturing (the app owns them). */
  close() {
    this.pc?.close();
    this.pc = null;
  }

  /** After a rollback: the tracks' transceivers go inactive without a track (`spare`: for reuse). */
  async #setAside(tracks, spare) {
    for (const t of tracks) {
      const transceiver = t.transceiver;
      t.transceiver = null;
      if (!transceiver || transceiver.currentDirection === 'stopped') continue;
      try {
        await transceiver.sender.replaceTrack(null);
        transceiver.direction = 'inactive';
        if (spare) this.#spares.push(transceiver);
      } catch (e) {
        this.#channel._log('warn', `cannot set a refused transceiver aside: ${e.message}`);
      }
    }
  }

  /** A spare transceiver of `t`'s kind and encodings (simulcast or not), now sending `t`; or null. */
  async #reuseSpare(t) {
    const simulcast = Boolean(t.simulcast);
    // A simulcast camera takes a spare with as many encodings as its capture size calls for.
    const count = simulcast ? simulcastLayers(t.mediaStreamTrack).length : 1;
    const index = this.#spares.findIndex((s) => {
      const encodings = s.sender.getParameters().encodings.length;
      return s.receiver.track.kind === t.kind && (encodings > 1) === simulcast && (!simulcast || encodings === count);
    });
    if (index < 0) return null;
    const [transceiver] = this.#spares.splice(index, 1);
    await transceiver.sender.replaceTrack(t.mediaStreamTrack);
    transceiver.sender.setStreams(new MediaStream([t.mediaStreamTrack]));
    transceiver.direction = 'sendonly';
    return transceiver;
  }

  async #rollback() {
    if (this.pc && this.pc.signalingState === 'have-local-offer') {
      try { await this.pc.setLocalDescription({ type: 'rollback' }); } catch (e) { /* nothing to undo */ }
    }
  }
}

/** What `addTransceiver` takes of a sender's current encoding (its layer on or off included). */
function encodingInit(e) {
  const init = {};
  for (const key of ['rid', 'active', 'maxBitrate', 'maxFramerate', 'scaleResolutionDownBy', 'scalabilityMode']) {
    if (e[key] !== undefined) init[key] = e[key];
  }
  return init;
}

/**
 * The `layers` of a simulcast camera, best first: `h` = camera_big at the capture size,
 * `m` = camera_medium at half each side (a capture of at least 960 pixels on its longer side),
 * `l` = camera_small at a quarter.
 */
export function simulcastLayers(mediaStreamTrack) {
  const settings = mediaStreamTrack.getSettings?.() ?? {};
  const width = settings.width ?? 1280;
  const height = settings.height ?? 720;
  const rids = Math.max(width, height) >= THREE_LAYERS_FROM ? ['h', 'm', 'l'] : ['h', 'l'];
  return rids.map((rid) => ({
    rid, desc: SIMULCAST_RIDS[rid], width: Math.round(width / LAYER_SCALES[rid]), height: Math.round(height / LAYER_SCALES[rid]),
    maxBitrate: LAYER_BITRATES[rid],
  }));
}

/**
 * The `layers` of a scalable (SVC) camera, best first: its spatial layers, each half the size of
 * the one above (`L3…`: camera_big, camera_medium, camera_small). Their `rid`s (`s2`, `s1`, `s0`:
 * the spatial layer) only name them: the stream has none (docs/protocol.md, "publish").
 */
export function spatialLayers(mediaStreamTrack, scalabilityMode) {
  const settings = mediaStreamTrack.getSettings?.() ?? {};
  const width = settings.width ?? 1280;
  const height = settings.height ?? 720;
  const count = Math.min(3, Math.max(1, Number(/^L(\d)/.exec(scalabilityMode)?.[1] ?? 1)));
  const names = count === 3 ? [SIMULCAST_RIDS.h, 'camera_medium', SIMULCAST_RIDS.l] : [SIMULCAST_RIDS.h, SIMULCAST_RIDS.l].slice(0, count);
  return names.map((desc, i) => {
    const scale = 2 ** i;
    return { rid: `s${count - 1 - i}`, desc, width: Math.round(width / scale), height: Math.round(height / scale) };
  });
}

/**
 * Puts `codec` (`'vp8'`, `'vp9'`, `'av1'` or `'h264'`) first in the transceiver's offer; the server forwards the first
 * codec of the offer it takes, or of its `--video-codecs` list when it has one (docs/protocol.md, "publish"). For H.264 the Constrained Baseline
 * packetization-mode 1 entries go first (the only H.264 the server forwards, RFC 6184 §8.1); for VP9
 * profile 0 (`profile-id=0`, the only VP9 profile it forwards); for AV1 profile 0 (`profile=0`, Main).
 */
/** Codecs whose simulcast encodings each need a `scalabilityMode` (one spatial layer). */
const SIMULCAST_NEEDS_MODE = new Set(['vp9', 'av1']);

function preferCodec(transceiver, codec) {
  if (!codec || !transceiver.setCodecPreferences || !globalThis.RTCRtpReceiver?.getCapabilities) return;
  const codecs = RTCRtpReceiver.getCapabilities('video')?.codecs ?? [];
  const mime = 'video/' + codec.toLowerCase();
  const rank = (c) => {
    if (c.mimeType.toLowerCase() !== mime) return 2;
    const fmtp = c.sdpFmtpLine ?? '';
    if (codec.toLowerCase() === 'vp9') return /profile-id=0/.test(fmtp) || !/profile-id/.test(fmtp) ? 0 : 1;
    if (codec.toLowerCase() === 'av1') return /(^|;)profile=0/.test(fmtp) || !/(^|;)profile=/.test(fmtp) ? 0 : 1;
    return codec.toLowerCase() === 'h264' && !(/packetization-mode=1/.test(fmtp) && /profile-level-id=42e01f/i.test(fmtp)) ? 1 : 0;
  };
  if (!codecs.some((c) => rank(c) === 0)) return;
  transceiver.setCodecPreferences([...codecs].sort((a, b) => rank(a) - rank(b)));
}
