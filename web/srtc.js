// SRTC web SDK — entry point. Plain ES modules, no build step:
//
//   <script type="module">
//     import { SRTCChannel } from '/sdk/srtc.js';
//     const channel = new SRTCChannel();
//     channel.on('userDidJoin', (user) => console.log('joined:', user.uid));
//     await channel.join('http://127.0.0.1:7880', token);   // token from your backend
//   </script>
//
// The SDK speaks the signaling protocol of docs/protocol.md over one WebSocket and carries media
// over the browser's own RTCPeerConnection (a publish and a subscribe connection). See
// docs/sdk-web.md.

import { SRTCChannel, SDK_VERSION } from './srtc/channel.js';
import { Emitter } from './srtc/emitter.js';
import { SRTCError } from './srtc/errors.js';
import { SRTCIm } from './srtc/im.js';
import { sealKeyFor } from './srtc/seal-keyring.js';
import { openSealedString, parseSealedString } from './srtc/sealed-string.js';
import { runSpeedTest } from './srtc/speed-test.js';

export { SRTCChannel, SDK_VERSION };
export { SRTCError, ErrorCode, ServerErrorCode } from './srtc/errors.js';
export { LocalTrack, RemoteTrack } from './srtc/tracks.js';
export { Emitter } from './srtc/emitter.js';
export { E2EEKeyProvider } from './srtc/e2ee.js';
export { SRTCIm, imURL } from './srtc/im.js';
export { runSpeedTest, gradeSpeedTest } from './srtc/speed-test.js';
export { ConnectionQuality, ConnectionState, DisconnectReason, TrackDesc, PROTOCOL_VERSION, signalingURL } from './srtc/models.js';

/**
 * The process-level engine: creates channel instances (several may be joined at once) and
 * leaves them all on `destroy()`; holds IM (`enableIm`) and the speed test; opens sealed strings
 * (`SRTCEngine.decrypt`). Optional:
 * `new SRTCChannel()` works on its own. Engine events (`engine.on(name, fn)` or
 * `engine.addDelegate(obj)`), named as the Swift `SRTCEngineDelegate`:
 * `speedTestDidProgress(progress)`, `speedTestDidFinish(result)`, `speedTestDidFail(error, linkId)`.
 */
export class SRTCEngine extends Emitter {
  #channels = new Set();
  #destroyed = false;
  #speedTest = null;

  /** @param {object} options defaults for every channel (see `SRTCChannel` options). */
  constructor(options = {}) {
    super();
    this.options = options;
    /** The IM service once `enableIm` was called (events: `imDidConnect`, `imDidReceive`, …). */
    this.im = null;
  }

  /**
   * Starts IM for the account (docs/im.md): resolves once logged in. `delegate` (optional) gets
   * the IM events as methods (`imDidReceive(im, message)`…); `engine.im.on(…)` works too.
   * Rejects with `conflict` while IM is on, or the server's refusal (40106 for a bad token).
   */
  async enableIm(url, token, delegate, { lastSeq } = {}) {
    if (this.#destroyed) throw new SRTCError('engineDestroyed', 'the engine was destroyed');
    if (this.im?.isConnected || this.im?._reconnecting) throw new SRTCError('conflict', 'IM is already enabled; disableIm() first');
    const im = new SRTCIm({ requestTimeoutMs: this.options.requestTimeoutMs ?? 10000 });
    if (delegate) im.addDelegate(delegate);
    await im.enable(url, token, { lastSeq });
    this.im = im;
    return im;
  }

  /** Stops IM. */
  disableIm() {
    this.im?.disable();
    this.im = null;
  }

  /**
   * The Swift SDK's `SRTCEngine.decrypt(_:)` (static, like it): opens a string the app's backend
   * sealed for this user (`POST /server/v1/seal`, docs/sealed-strings.md) with the key the server
   * sent when the user joined a channel or enabled IM in this page (any engine or channel).
   * @param {string} sealed `srtc1.<app_id>.<uid>.<box>`.
   * @returns {Promise<string|null>} the plaintext; null for a non-string, anything that is not a
   * sealed string, one sealed for an app and uid that has not joined a channel or enabled IM in
   * this page, and one that fails authentication (changed, truncated, another key). Rejects with
   * `wrongState` only where the page has no WebCrypto (not a secure context: use https or localhost).
   */
  static async decrypt(sealed) {
    const parsed = parseSealedString(sealed);
    const key = parsed && sealKeyFor(parsed.appId, parsed.uid);
    if (!key) return null;
    if (!globalThis.crypto?.subtle) throw new SRTCError('wrongState', 'decrypt needs WebCrypto: serve the page over https (or from localhost)');
    return openSealedString(parsed, key);
  }

  /**
   * Starts a speed test over the server's WebSocket carrier (docs/speed-test.md); resolves with
   * the result too. Params: `{url, token, linkId, duration, expectedUplinkBitrate,
   * expectedDownlinkBitrate}`. Rejects with `conflict` (1009) while another runs or while a channel
   * is joined (the documentation's Conflict).
   */
  async startSpeedTest(params) {
    if (this.#speedTest) throw new SRTCError('conflict', 'a speed test is already running; stop it first');
    if ([...this.#channels].some((c) => c.connectionState && c.connectionState !== 'disconnected')) {
      throw new SRTCError('conflict', 'the engine is in a channel; run the speed test before joining');
    }
    const abort = new AbortController();
    this.#speedTest = abort;
    try {
      const result = await runSpeedTest(params, { signal: abort.signal, onProgress: (p) => this.emit('speedTestDidProgress', p) });
      if (!abort.signal.aborted) this.emit('speedTestDidFinish', result);
      return result;
    } catch (error) {
      if (!abort.signal.aborted) this.emit('speedTestDidFail', error, params.linkId ?? '');
      throw error;
    } finally {
      if (this.#speedTest === abort) this.#speedTest = null;
    }
  }

  /** Stops the running speed test; nothing more is reported for it. */
  stopSpeedTest() {
    this.#speedTest?.abort();
    this.#speedTest = null;
  }

  /** A new channel instance. */
  createChannel(options = {}) {
    if (this.#destroyed) throw new Error('the engine was destroyed');
    const channel = new SRTCChannel({ ...this.options, ...options });
    this.#channels.add(channel);
    return channel;
  }

  /** The channels created and not destroyed. */
  get channels() { return [...this.#channels]; }

  /** Leaves and releases one channel. */
  async destroyChannel(channel) {
    await channel.leave();
    channel._destroyed = true;
    this.#channels.delete(channel);
  }

  /** Leaves every channel; the engine cannot create channels afterwards. */
  async destroy() {
    this.#destroyed = true;
    this.stopSpeedTest();
    this.disableIm();
    await Promise.all([...this.#channels].map((c) => this.destroyChannel(c)));
  }
}

/**
 * Opens the camera and/or microphone: `{audio, video}` are booleans or constraints. The camera
 * defaults to 1280×720 so a simulcast `camera_small` layer (a quarter of each side) stays useful.
 * @returns {Promise<{audio: MediaStreamTrack|null, video: MediaStreamTrack|null}>}
 */
export async function createLocalMediaTracks({ audio = true, video = true } = {}) {
  const constraints = {
    audio: audio === true ? { echoCancellation: true, noiseSuppression: true } : audio || false,
    video: video === true ? { width: { ideal: 1280 }, height: { ideal: 720 }, frameRate: { ideal: 30 } } : video || false,
  };
  const stream = await navigator.mediaDevices.getUserMedia(constraints);
  return { audio: stream.getAudioTracks()[0] ?? null, video: stream.getVideoTracks()[0] ?? null };
}
