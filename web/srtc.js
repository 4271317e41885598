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

export { SRTCChannel, SDK_VERSION };
export { SRTCError, ErrorCode, ServerErrorCode } from './srtc/errors.js';
export { LocalTrack, RemoteTrack } from './srtc/tracks.js';
export { Emitter } from './srtc/emitter.js';
export { ConnectionQuality, ConnectionState, DisconnectReason, TrackDesc, PROTOCOL_VERSION, signalingURL } from './srtc/models.js';

/**
 * The process-level engine: creates channel instances (several may be joined at once) and
 * leaves them all on `destroy()`. Optional: `new SRTCChannel()` works on its own.
 */
export class SRTCEngine {
  #channels = new Set();
  #destroyed = false;

  /** @param {object} options defaults for every channel (see `SRTCChannel` options). */
  constructor(options = {}) {
    this.options = options;
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
