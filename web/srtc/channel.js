// SRTC web SDK: a channel. Join a channel on an SRTC server, see its users and their tracks,
// publish local tracks, subscribe to remote ones, exchange custom messages. Server events are
// handled in channel-events.js, reconnection in channel-reconnect.js.

import { Emitter } from './emitter.js';
import { encodePublish, MAX_DATA_PACKET } from './data-packet.js';
import { SRTCError, ServerErrorCode } from './errors.js';
import { ConnectionState, DisconnectReason, PROTOCOL_VERSION, TrackDesc, signalingURL } from './models.js';
import { SignalClient } from './signal-client.js';
import { LocalTrack } from './tracks.js';
import { Publisher } from './publisher.js';
import { Subscriber } from './subscriber.js';
import { E2EEManager, hasScriptTransform } from './e2ee.js';
import { isEncryptedData } from './e2ee-sframe.js';
import { applyFirstJoin } from './channel-events.js';
import { handleEvent } from './channel-dispatch.js';
import { connectionLost, mediaPathSilent, stopReconnecting, transportStateChanged } from './channel-reconnect.js';
import { PATH_POLL_MS, PathMonitor } from './path-monitor.js';
import { ReceiveMonitor } from './receive-monitor.js';
import { AudioNackHeadroom } from './audio-nack-headroom.js';
import { rememberSealKey } from './seal-keyring.js';
import { AdaptiveStream } from './adaptive-stream.js';
import { joinVideoCodecs } from './video-codecs.js';

/** SDK name and version sent in `join` (`sdk`). */
export const SDK_VERSION = '0.1.0';

const LOG_LEVELS = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

const DEFAULT_OPTIONS = {
  /** Answer time allowed for a request. */
  requestTimeoutMs: 10000,
  /** Time allowed for the WebSocket and `join`. */
  joinTimeoutMs: 15000,
  /** A `ping` goes out after this long without a request (docs/protocol.md: 10 s). */
  pingIntervalMs: 10000,
  /** A subscribed video that decodes no frame for this long is reported timed out. */
  receiveTimeoutMs: 3000,
  /** Delays before reconnection attempts; the last repeats until the grace period ends. */
  reconnectDelaysMs: [0, 500, 1000, 2000, 4000],
  /** Take quality, speaker and layer events on the subscribe connection's data channel (docs/protocol.md, "Data channels"). */
  useDataChannel: true,
  /** Extra `RTCPeerConnection` ICE servers, besides the TURN servers of the join response. */
  iceServers: [],
  /** `all`, or `relay`: media only through TURN (the join response's `ice_servers`, docs/protocol.md). */
  iceTransportPolicy: 'all',
  /** `null` (the browser's order, VP8 first in Chromium), `'vp8'`, `'vp9'`, `'av1'` or `'h264'`: the video codec offered first when publishing. */
  preferredVideoCodec: null,
  /** Turn off the encodings of my simulcast cameras that nobody receives (the server's `layers_needed`), and back on when someone needs them; `false` keeps every encoding on. */
  dynacast: true,
  /** `true` (or `{debounceMs}`): each remote video's attached elements pick its layer by their rendered size, and a video none of
   *  whose elements is visible (hidden, scrolled out, detached, page in the background) is paused at the server (docs/sdk-web.md, "Adaptive stream"). */
  adaptiveStream: false,
  /** `null` (every codec this browser decodes, `RTCRtpReceiver.getCapabilities('video')`, H.264 profile by profile) or the video codecs this client decodes,
   *  preferred first (`['vp8', 'vp9', 'av1', 'h264']`, `'h264'` standing for the browser's H.264 profiles): sent as the join's `video_codecs`. */
  videoCodecs: null,
  /** `debug`, `info`, `warn`, `error` or `off`. */
  logLevel: 'warn',
  /** `(level, message) => {}` replaces console logging. */
  logger: null,
};

/**
 * One channel instance. Events (`channel.on(name, fn)` or `channel.addDelegate(obj)`), named as
 * the Swift SDK's `ChannelDelegate` methods:
 *
 * `didJoinSucceed(info)`, `channelIsReconnecting()`, `didReconnect(info)`,
 * `didDisconnect(reason, error)`, `userDidJoin(user)`, `userDidUpdate(user)`, `meDidUpdate(user)`,
 * `userDidLeave(uid, reason)`, `didAddTrack(user, track)`, `didUpdateTrack(user, track)`,
 * `didRemoveTrack(user, track)`, `didChangeReceiveStreamStatus(status)`,
 * `didReceiveCustomMessage(message)`, `didUpdateInfo(info)`, `didReceiveQualityReport(report)`,
 * `didChangeConnectionQuality(change)`, `didChangeActiveSpeakers(snapshot)`,
 * `didSwitchLayer(info)`, `didReceiveCaption(caption)` (also emitted as `caption`); and web additions: `didUpdateLayersNeeded({trackId, layers})`, `trackDidBindRtcTrack(track)`,
 * `subscriptionDidEnd({trackId, reason})`, `connectionStateDidChange(state)`,
 * `transportStateDidChange(transport, iceState)`.
 */
export class SRTCChannel extends Emitter {
  constructor(options = {}) {
    super();
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this._state = ConnectionState.disconnected;
    this._signal = null;
    this._sessionId = null;
    this._info = null;
    this._me = null;
    this._graceSeconds = 20;
    /** uid → UserInfo (with its `tracks`), in join order. */
    this._users = new Map();
    /** uid → UserInfo of a hidden publisher (the server's composite): its tracks, never a user. */
    this._hiddenPublishers = new Map();
    /** track id → RemoteTrack. */
    this._remoteTracks = new Map();
    /** My published LocalTracks. */
    this._localTracks = new Set();
    this._params = null;
    this._heldEvents = null;
    this._publisher = null;
    this._subscriber = null;
    this._ticker = 0;
    this._reconnect = null;
    this._receiveMonitor = new ReceiveMonitor(this);
    this._audioNackHeadroom = new AudioNackHeadroom(this);
    this._pathMonitor = new PathMonitor(this);
    const adaptive = this.options.adaptiveStream;
    this._adaptive = adaptive ? new AdaptiveStream(this, typeof adaptive === 'object' ? adaptive : {}) : null;
    /** End-to-end encryption (`options.e2ee: {keyProvider}`, docs/e2ee.md), or null. */
    this._e2ee = this.options.e2ee ? new E2EEManager(this.options.e2ee, (uid, state) => this.emit('e2eeStateChanged', uid, state)) : null;
  }

  // MARK: - State

  /** `disconnected`, `connecting`, `connected` or `reconnecting`. */
  get connectionState() { return this._state; }
  /** Whether the channel is joined (connected or reconnecting). */
  get isJoined() { return this._state === ConnectionState.connected || this._state === ConnectionState.reconnecting; }
  /** The channel's `ChannelInfo` (`{channel, createdAt, userCount, metadata}`), once joined. */
  get info() { return this._info; }
  /** The channel name, once joined. */
  get channelId() { return this._info?.channel ?? null; }
  /** My `UserInfo`, once joined. */
  get me() { return this._me; }
  /** My uid (from the token), once joined. */
  get uid() { return this._me?.uid ?? null; }
  /** The session id the server gave (used to resume after a reconnect). */
  get sessionId() { return this._sessionId; }
  /** The other users, in join order. */
  get users() { return [...this._users.values()]; }
  /** One remote user's `UserInfo`. */
  user(uid) { return this._users.get(uid) ?? null; }
  /** Every remote track. */
  get remoteTracks() { return [...this._remoteTracks.values()]; }
  /** A remote track by id. */
  remoteTrack(trackId) { return this._remoteTracks.get(trackId) ?? null; }
  /** The remote tracks of one user. */
  remoteTracksOf(uid) { return this.remoteTracks.filter((t) => t.uid === uid); }
  /** My published tracks. */
  get localTracks() { return [...this._localTracks]; }
  /** The publish and subscribe `RTCPeerConnection`s (null until used). */
  get peerConnections() { return { publish: this._publisher?.pc ?? null, subscribe: this._subscriber?.pc ?? null }; }

  // MARK: - Join and leave

  /**
   * Joins a channel.
   * @param {string} url the server, `http(s)://host:port` (or a `ws(s)://` URL).
   * @param {string} token the join token your backend got from `POST /server/v1/channel/grant`.
   * @param {{nickname?: string, custom?: string}} profile shown to the others.
   * @returns {Promise<object>} the `ChannelInfo` (also delivered by `didJoinSucceed`).
   */
  async join(url, token, { nickname, custom } = {}) {
    if (this._destroyed) throw new SRTCError('engineDestroyed', 'the channel was destroyed');
    if (this._state !== ConnectionState.disconnected) throw new SRTCError('wrongState', `join while ${this._state}`);
    const wsURL = signalingURL(url);
    this._params = { wsURL, token: String(token ?? ''), nickname, custom };
    this._setState(ConnectionState.connecting);
    const signal = this._makeSignal(wsURL);
    this._signal = signal;
    this._heldEvents = [];
    // One certificate for every peer connection of the session: a connection made anew after an
    // address change keeps the fingerprint the server has (docs/network.md, "Addresses that change").
    const certificate = this._certificate ? Promise.resolve(this._certificate) : makeCertificate();
    let response;
    try {
      await signal.connect(this.options.joinTimeoutMs);
      response = await this._joinRequest(signal, null);
      this._certificate = await certificate;
    } catch (error) {
      // The socket may already be closed (a refused token closes it), which cleared `_signal`.
      if (this._state === ConnectionState.connecting && (this._signal === signal || this._signal === null)) {
        this._signal = null;
        this._heldEvents = null;
        this._setState(ConnectionState.disconnected);
      }
      signal.close(1000, 'join failed');
      throw error;
    }
    if (this._signal !== signal || this._state !== ConnectionState.connecting) {
      signal.close(1000, 'left while joining');
      throw new SRTCError('wrongState', 'left while joining');
    }
    this._startTicker();
    applyFirstJoin(this, response);
    this._log('info', `joined ${response.channel.channel} as ${response.me.uid}`);
    return response.channel;
  }

  /**
   * Leaves the channel: tells the server, closes the media connections and the WebSocket.
   * `didDisconnect('client_leave')` follows. Does nothing when not joined.
   */
  async leave() {
    if (this._state === ConnectionState.disconnected) return;
    stopReconnecting(this);
    const signal = this._signal;
    if (signal?.isOpen && this._state === ConnectionState.connected) {
      try { await signal.request('leave', undefined, { timeoutMs: 3000 }); } catch (e) { /* leaving anyway */ }
    }
    this._teardown(DisconnectReason.clientLeave, null);
  }

  // MARK: - Publishing

  /**
   * Publishes a browser track. Others get `didAddTrack`.
   * @param {MediaStreamTrack} mediaStreamTrack from `getUserMedia`, `getDisplayMedia` or a canvas.
   * @param {{desc?: string, simulcast?: boolean, scalabilityMode?: string, muted?: boolean}} options `desc` defaults to
   *   `mic` (audio) or `camera_big` (video); `simulcast` sends the camera as layers `camera_big` (rid h),
   *   `camera_medium` (rid m, a capture of 960 pixels or more) and `camera_small` (rid l); `scalabilityMode` (`'L3T3_KEY'`, `'L2T3'`…, with VP9 or AV1) sends one
   *   scalable stream whose spatial layers are the track's layers (`camera_big`, `camera_medium`, `camera_small`).
   * @returns {Promise<LocalTrack>}
   */
  async publishLocalTrack(mediaStreamTrack, options = {}) {
    const [track] = await this.publishLocalTracks([{ track: mediaStreamTrack, ...options }]);
    return track;
  }

  /** Publishes several tracks in one negotiation: `[{track, desc, simulcast, scalabilityMode, muted}]`. */
  async publishLocalTracks(entries) {
    this._requireJoined();
    const tracks = entries.map(({ track, desc, simulcast = false, scalabilityMode = null, muted = false }) => {
      if (!track || (track.kind !== 'audio' && track.kind !== 'video')) throw new TypeError('track must be a MediaStreamTrack');
      if ((simulcast || scalabilityMode) && track.kind !== 'video') throw new TypeError('only video tracks are simulcast or scalable');
      if (simulcast && scalabilityMode) throw new TypeError('a track is simulcast or scalable, not both');
      const name = desc ?? (track.kind === 'audio' ? TrackDesc.mic : TrackDesc.cameraBig);
      return new LocalTrack(track, { desc: name, simulcast, scalabilityMode, muted });
    });
    const published = await this._publisherFor().publish(tracks);
    for (const t of published) this._localTracks.add(t);
    return published;
  }

  /** Stops publishing a track (a `LocalTrack`, its id or its `MediaStreamTrack`). */
  async unpublish(track) {
    const local = this._localTrack(track);
    await this._publisherFor().unpublish(local);
    this._localTracks.delete(local);
    local._ended();
  }

  /** Mutes (or unmutes) one of my tracks: it sends nothing and others get `didUpdateTrack`. */
  async mute(track, muted = true) {
    const local = this._localTrack(track);
    await this._request('mute', { track_id: local.id, muted: Boolean(muted) });
    local.mediaStreamTrack.enabled = !muted;
    local._setMuted(Boolean(muted));
  }

  // MARK: - Subscribing

  /**
   * Subscribes to a remote track; its `MediaStreamTrack` arrives with `trackDidBindRtcTrack`
   * (and the track's own `didBindRtcTrack`).
   * @param {string|RemoteTrack} track the track or its id.
   * @param {{layer?: string}} options `layer`: `camera_big`, `camera_medium` or `camera_small` for a simulcast camera.
   * @returns {Promise<RemoteTrack>}
   */
  async subscribe(track, { layer } = {}) {
    const remote = this._remote(track);
    this._subscriberFor();
    await this._request('subscribe', { track_id: remote.id, ...(layer ? { layer } : {}) });
    remote.isSubscribed = true;
    remote.requestedLayer = layer ?? null;
    this._receiveMonitor.subscribed(remote);
    this._adaptive?.subscribed(remote);
    return remote;
  }

  /**
   * Switches the simulcast layer of a subscription; `didSwitchLayer` follows on a key frame.
   * `'none'` pauses its video at the server until a layer (or `null`, the best) is asked for again.
   */
  async setLayer(track, layer) {
    const remote = this._remote(track);
    await this._request('set_layer', { track_id: remote.id, layer });
    remote.requestedLayer = layer;
  }

  /** Stops receiving a remote track. */
  async unsubscribe(track) {
    const remote = this._remote(track);
    await this._request('unsubscribe', { track_id: remote.id });
    remote.isSubscribed = false;
    remote.requestedLayer = null;
    this._receiveMonitor.unsubscribed(remote);
    this._adaptive?.unsubscribed(remote);
  }

  // MARK: - Data

  /**
   * Sends a custom message (text, for example JSON text; at most 16 KiB) to the listed uids,
   * or to everyone else when `to` is omitted or empty. Recipients get `didReceiveCustomMessage`.
   */
  async sendCustomMessage(data, to) {
    const list = to == null ? undefined : (Array.isArray(to) ? to : [to]).map(String);
    await this._request('send_message', { data: String(data), ...(list && list.length ? { to: list } : {}) });
  }

  /**
   * Sends user data on the data channel (docs/protocol.md, "Data messages") to the uids in `to`,
   * or to everyone else; recipients get `didReceiveData`. `reliable` (default) is ordered and
   * retransmitted, otherwise it is sent once, unordered. Needs `useDataChannel` and the token's
   * `publish_data` (the server drops it otherwise). With `encrypted: true` (and `e2ee` in the
   * options) the payload is encrypted end to end (docs/e2ee.md, "Data messages") and the call
   * returns a Promise (WebCrypto is asynchronous) that rejects with the same errors; recipients
   * without the key get `didFailToDecryptData`.
   * @param {Uint8Array|string} data bytes, or text sent as UTF-8
   * @param {{reliable?: boolean, to?: string[]|string, topic?: string, encrypted?: boolean}} options
   */
  publishData(data, { reliable = true, to, topic, encrypted = false } = {}) {
    this._requireJoined();
    const payload = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
    if (encrypted) return this.#publishEncrypted(payload, { reliable, to, topic });
    if (isEncryptedData(payload)) {
      throw SRTCError.server({ code: ServerErrorCode.invalidParameter, message: 'a plain data payload may not begin with the encrypted marker FF 53 46 01' });
    }
    this.#sendDataPacket(payload, { reliable, to, topic });
  }

  async #publishEncrypted(payload, { reliable, to, topic }) {
    if (!this._e2ee) throw new SRTCError('wrongState', 'end-to-end encryption is not configured (options.e2ee)');
    const topicBytes = new TextEncoder().encode(topic ?? '');
    if (topicBytes.length > 255) {
      throw SRTCError.server({ code: ServerErrorCode.invalidParameter, message: 'data packet: topic longer than 255 bytes' });
    }
    const sealed = await this._e2ee.encryptData(payload, topicBytes);
    if (!sealed) throw new SRTCError('wrongState', 'no end-to-end encryption key to send under yet');
    this.#sendDataPacket(sealed, { reliable, to, topic });
  }

  #sendDataPacket(payload, { reliable, to, topic }) {
    const list = to == null ? [] : (Array.isArray(to) ? to : [to]).map(String);
    let packet;
    try { packet = encodePublish(payload, list, topic); } catch (e) {
      throw SRTCError.server({ code: ServerErrorCode.invalidParameter, message: `data packet: ${e.message}` });
    }
    if (packet.length > MAX_DATA_PACKET) {
      throw SRTCError.server({ code: ServerErrorCode.payloadTooLarge, message: `data packet exceeds ${MAX_DATA_PACKET} bytes` });
    }
    if (!this._subscriber?.sendData(packet, reliable)) throw new SRTCError('wrongState', 'the data channel is not open');
  }

  /**
   * A data packet from the subscribe connection: `didReceiveData {from, topic, data, reliable,
   * encrypted}`, its payload decrypted when it is encrypted (docs/e2ee.md), or
   * `didFailToDecryptData {from, topic, reliable, reason}` when it does not decrypt here.
   */
  _dataMessage(message) {
    if (this._e2ee) this._e2ee.inReceiveOrder(() => this.#deliverData(message));
    else this.#deliverData(message);
  }

  async #deliverData(message) {
    if (message.from === null || !isEncryptedData(message.data)) {
      this.emit('didReceiveData', { ...message, encrypted: false });
      return;
    }
    const failed = (reason) => this.emit('didFailToDecryptData', { from: message.from, topic: message.topic, reliable: message.reliable, reason });
    if (!this._e2ee) { failed('missingKey'); return; }
    let result;
    try {
      result = await this._e2ee.decryptData(message.from, message.data, new TextEncoder().encode(message.topic ?? ''));
    } catch {
      result = { error: 'decryptionFailed' };
    }
    if (result.frame) this.emit('didReceiveData', { ...message, data: result.frame, encrypted: true });
    else failed(result.error);
  }

  /** Changes my nickname and/or custom data (fields left out stay); I get `meDidUpdate`, others `userDidUpdate`. */
  async updateProfile({ nickname, custom } = {}) {
    const data = {};
    if (nickname !== undefined) data.nickname = String(nickname);
    if (custom !== undefined) data.custom = String(custom);
    await this._request('update_profile', data);
  }

  /** A round trip to the server; resolves with its time (Unix milliseconds). */
  async ping() {
    const response = await this._request('ping');
    return response.serverTime;
  }

  /** The browser's statistics of both media connections: `{publish, subscribe}` (`RTCStatsReport` or null). */
  async getStats() {
    const { publish, subscribe } = this.peerConnections;
    return { publish: publish ? await publish.getStats() : null, subscribe: subscribe ? await subscribe.getStats() : null };
  }

  // MARK: - Internals

  _log(level, message) {
    if ((LOG_LEVELS[level] ?? 1) < (LOG_LEVELS[this.options.logLevel] ?? 2)) return;
    if (this.options.logger) this.options.logger(level, message);
    else (console[level] ?? console.log)(`[srtc] ${message}`);
  }

  _setState(state) {
    if (this._state === state) return;
    this._state = state;
    this.emit('connectionStateDidChange', state);
  }

  _makeSignal(wsURL) {
    const signal = new SignalClient(wsURL, {
      requestTimeoutMs: this.options.requestTimeoutMs,
      log: (level, message) => this._log(level, message),
      onEvent: (type, data) => {
        if (this._signal !== signal) return;
        if (this._heldEvents) this._heldEvents.push([type, data]);
        else handleEvent(this, type, data);
      },
      onClose: (info) => {
        if (this._signal !== signal) return;
        this._log('info', `signaling closed (${info.code}${info.reason ? ' ' + info.reason : ''})`);
        connectionLost(this, signal);
      },
    });
    return signal;
  }

  _joinRequest(signal, sessionId) {
    const { token, nickname, custom } = this._params;
    const data = { token, protocol: PROTOCOL_VERSION, sdk: `srtc-web/${SDK_VERSION} ${globalThis.navigator?.userAgent ?? ''}`.trim() };
    if (nickname != null) data.nickname = String(nickname);
    if (custom != null) data.custom = String(custom);
    if (sessionId) data.session_id = sessionId;
    if (this.options.useDataChannel) data.data_channel = true;
    const videoCodecs = joinVideoCodecs(this.options.videoCodecs);
    if (videoCodecs) data.video_codecs = videoCodecs;
    return signal.request('join', data, { timeoutMs: this.options.joinTimeoutMs }).then((response) => {
      // The user's seal key (docs/protocol.md, `join`), on every join and resume, for `SRTCEngine.decrypt`.
      rememberSealKey(response.sealKey, response.me?.uid, token);
      return response;
    });
  }

  /** An event from the subscribe connection's data channel: handled like one from the WebSocket. */
  _dataChannelEvent(type, data) {
    if (this._heldEvents) this._heldEvents.push([type, data]);
    else handleEvent(this, type, data);
  }

  /** Sends a request on the live connection; `notJoined` / `connectionFailed` otherwise. */
  _request(type, data) {
    if (!this.isJoined) return Promise.reject(new SRTCError('notJoined', `${type}: the channel is not joined`));
    if (this._state !== ConnectionState.connected || !this._signal?.isOpen) {
      return Promise.reject(new SRTCError('connectionFailed', `${type}: reconnecting`));
    }
    return this._signal.request(type, data);
  }

  _requireJoined() {
    if (!this.isJoined) throw new SRTCError('notJoined', 'the channel is not joined');
  }

  _rtcConfiguration() {
    const configuration = { bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require', iceTransportPolicy: this.options.iceTransportPolicy,
                            iceServers: [...this.options.iceServers, ...(this._turnServers ?? [])] };
    if (this._certificate) configuration.certificates = [this._certificate];
    // Without RTCRtpScriptTransform, E2EE needs the connections' encoded streams (Chromium's older API).
    if (this._e2ee && !hasScriptTransform) configuration.encodedInsertableStreams = true;
    return configuration;
  }

  _publisherFor() {
    this._requireJoined();
    if (!this._publisher) this._publisher = new Publisher(this, this._rtcConfiguration());
    return this._publisher;
  }

  _subscriberFor() {
    if (!this._subscriber) this._subscriber = new Subscriber(this, this._rtcConfiguration(), this.options.useDataChannel);
    return this._subscriber;
  }

  _localTrack(track) {
    this._requireJoined();
    for (const t of this._localTracks) {
      if (t === track || t.id === track || t.mediaStreamTrack === track) return t;
    }
    throw new SRTCError('wrongState', 'not a published local track');
  }

  _remote(track) {
    this._requireJoined();
    const id = typeof track === 'string' ? track : track?.id;
    const remote = this._remoteTracks.get(id);
    if (!remote) throw new SRTCError('wrongState', `no remote track ${id}`);
    return remote;
  }

  _remoteTrackBound(trackId, mediaStreamTrack, mid) {
    const remote = this._remoteTracks.get(trackId);
    if (!remote || !remote._bind(mediaStreamTrack, mid)) return;
    this._receiveMonitor.bound(remote);
    this.emit('trackDidBindRtcTrack', remote);
  }

  _remoteTrackUnbound(trackId) {
    this._remoteTracks.get(trackId)?._unbind();
  }

  /** A connected transport stopped receiving (`PathMonitor`): handled as `disconnected`. */
  _mediaPathSilent(transport) {
    mediaPathSilent(this, transport);
  }

  _transportStateChanged(transport, iceState) {
    this.emit('transportStateDidChange', transport, iceState);
    transportStateChanged(this, transport, iceState);
  }

  _startTicker() {
    clearInterval(this._ticker);
    this._ticker = setInterval(() => this._tick(), 1000);
    clearInterval(this._pathTicker);
    this._pathTicker = setInterval(() => { if (this._state === ConnectionState.connected) this._pathMonitor.tick(); }, PATH_POLL_MS);
  }

  _tick() {
    const signal = this._signal;
    if (this._state === ConnectionState.connected && signal?.isOpen && performance.now() - signal.lastSentAt >= this.options.pingIntervalMs) {
      signal.request('ping', undefined, { timeoutMs: this.options.pingIntervalMs }).catch((e) => {
        // No answer: the connection is dead even if the socket has not noticed; resume on a new one.
        if (e.kind === 'timeout' && this._signal === signal) signal.close(4000, 'ping timeout');
      });
    }
    this._receiveMonitor.tick();
    this._audioNackHeadroom.tick();
  }

  /** Ends the session for good: remote tracks end, media closes, `didDisconnect`. Idempotent. */
  _teardown(reason, error) {
    if (this._state === ConnectionState.disconnected) return;
    stopReconnecting(this);
    clearInterval(this._ticker);
    this._ticker = 0;
    clearInterval(this._pathTicker);
    this._pathTicker = 0;
    const signal = this._signal;
    this._signal = null;
    this._heldEvents = null;
    signal?.close(1000, reason);
    this._publisher?.close();
    this._subscriber?.close();
    this._publisher = null;
    this._subscriber = null;
    this._receiveMonitor.reset();
    this._audioNackHeadroom.reset();
    this._pathMonitor.reset();
    const remotes = [...this._remoteTracks.values()];
    const locals = [...this._localTracks];
    this._remoteTracks.clear();
    this._localTracks.clear();
    this._users.clear();
    this._hiddenPublishers.clear();
    this._setState(ConnectionState.disconnected);
    for (const t of remotes) t._end();
    for (const t of locals) t._ended();
    this._log('info', `disconnected: ${reason}`);
    this.emit('didDisconnect', reason, error ?? null);
  }
}

/** An ECDSA P-256 certificate for the session's peer connections (Chromium's default kind); null
 * where the browser cannot make one: each connection then has its own, and a path that broke is
 * ICE-restarted instead of moved to a new connection. */
function makeCertificate() {
  const pc = globalThis.RTCPeerConnection;
  if (!pc?.generateCertificate) return Promise.resolve(null);
  return pc.generateCertificate({ name: 'ECDSA', namedCurve: 'P-256' }).catch(() => null);
}
