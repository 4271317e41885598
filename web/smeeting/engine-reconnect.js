// SMeeting web SDK: losing a connection. A dropped meeting WebSocket is not the end of the
// meeting: the server keeps the session for its grace period (docs/meeting-protocol.md, "Resuming
// a session"), so the SDK opens a new WebSocket and logs in with the session id and the last event
// it handled; the server sends what was missed, in order, and I never left the meeting for the
// others. The meeting's SRTC channel is untouched meanwhile (it resumes its own session when its
// WebSocket drops: docs/sdk-web.md, Reconnection); a channel that ends while I am still in the
// meeting is joined again. The engine's `connectionState` tells the app which it is.

import { SMeetingError, MeetingErrorCode } from './errors.js';
import { ExitReason } from './models.js';

/** Refusals after which trying again cannot help. */
const FATAL_CODES = new Set([MeetingErrorCode.invalidToken, MeetingErrorCode.tokenExpired, MeetingErrorCode.tokenNotYetValid]);

/** The meeting WebSocket `client` closed without `logout`: resume the session, or give up. */
export function meetingConnectionLost(engine, client, info) {
  if (engine._client !== client) return;
  engine._client = null;
  if (engine._uid === null) return;
  engine._log('info', `meeting connection lost (${info.code}${info.reason ? ' ' + info.reason : ''}); resuming session ${engine._sessionId}`);
  engine._reconnect = { startedAt: performance.now(), attempt: 0, timer: 0 };
  engine._updateState();
  schedule(engine, engine._reconnect);
}

function schedule(engine, r) {
  if (engine._reconnect !== r) return;
  const delays = engine.options.reconnectDelaysMs;
  const delay = delays[Math.min(r.attempt, delays.length - 1)] ?? 1000;
  if (performance.now() + delay - r.startedAt > engine.options.reconnectTimeoutMs) {
    giveUp(engine, r, SMeetingError.internal('could not reconnect in time'));
    return;
  }
  r.timer = setTimeout(() => attempt(engine, r), delay);
}

async function attempt(engine, r) {
  if (engine._reconnect !== r) return;
  r.attempt += 1;
  let client;
  let response;
  try {
    ({ client, response } = await engine._connect({ token: engine._token, sessionId: engine._sessionId, lastSeq: engine._lastSeq }));
  } catch (error) {
    if (engine._reconnect !== r) return;
    const e = SMeetingError.from(error);
    engine._log('warn', `resume attempt ${r.attempt} failed: ${e.message}`);
    if (FATAL_CODES.has(e.code)) giveUp(engine, r, e);
    else schedule(engine, r);
    return;
  }
  if (engine._reconnect !== r) { client.close(1000, 'abandoned'); return; }
  engine._reconnect = null;
  engine._client = client;
  engine._nickname = response.nickname;
  if (!response.resumed) {
    // A new session: the old one ended (grace period over, or the server restarted), and with it
    // my place in the meeting. The login itself is good.
    engine._log('warn', 'the meeting session could not be resumed; a new session started');
    engine._sessionId = response.sessionId ?? null;
    engine._lastSeq = 0;
    if (engine._room !== null || engine._waiting !== null) engine._tearDown(ExitReason.disconnected);
    engine._updateState();
    return;
  }
  if (r.exitAfterResume) client.request('exit_room').catch(() => {});
  // The missed events follow the answer on this socket and are applied as they come.
  engine._updateState();
  engine.emit('meetingDidReconnect', { room: engine._room, waitingRoom: engine._waiting });
}

function giveUp(engine, r, error) {
  if (engine._reconnect !== r) return;
  engine._reconnect = null;
  engine._log('warn', `meeting connection lost for good: ${error.message}`);
  if (engine._room !== null || engine._waiting !== null) engine._tearDown(ExitReason.disconnected);
  engine._uid = null;
  engine._token = null;
  engine._sessionId = null;
  clearInterval(engine._ticker);
  engine._updateState();
  engine.emit('meetingConnectionDidLose', { error });
}

export const ConnectionMethods = {
  /**
   * `disconnected` (not logged in), `connected`, or `reconnecting` (the meeting session or the
   * meeting's media channel is being resumed, or the channel is switching). `connectionStateDidChange`
   * tells each change.
   */
  get connectionState() { return this._state; },

  /** Whether the meeting connection is being resumed after a drop. */
  get isReconnecting() { return this._reconnect !== null; },

  _updateState() {
    let state;
    if (this._reconnect) state = 'reconnecting';
    else if (!this._client) state = 'disconnected';
    else if (this._room && (this._rejoining || this._channel?.connectionState === 'reconnecting')) state = 'reconnecting';
    else state = 'connected';
    this._setState(state);
  },

  _startTicker() {
    clearInterval(this._ticker);
    this._ticker = setInterval(() => {
      const client = this._client;
      if (!client?.isOpen || performance.now() - client.lastSentAt < this.options.pingIntervalMs) return;
      client.request('ping', undefined, { timeoutMs: this.options.pingIntervalMs }).catch((e) => {
        // No answer: the connection is dead even if the socket has not noticed.
        if (e.kind === 'timeout' && this._client === client) client.close(4000, 'ping timeout');
      });
    }, 1000);
  },

  _stopReconnecting() {
    if (!this._reconnect) return;
    clearTimeout(this._reconnect.timer);
    this._reconnect = null;
  },

  /**
   * Drops the meeting's channel but keeps the meeting: views stay bound (they show the next
   * channel's tracks), local capture stops. Returns the media to reopen afterwards.
   */
  _detachChannel() {
    const media = {
      mic: this._local.mic ? { deviceId: this._local.mic.deviceId, preset: this._local.mic.preset } : null,
      camera: this._local.camera ? { deviceId: this._local.camera.deviceId, view: this._local.camera.view, preset: this._local.camera.preset } : null,
    };
    const channel = this._channel;
    this._channel = null;
    for (const off of this._channelOffs) off();
    this._channelOffs = [];
    this._views.detach();
    this._audio.detach();
    for (const kind of ['mic', 'camera', 'screen']) {
      const local = this._local[kind];
      this._local[kind] = null;
      local?.media.stop();
    }
    if (channel) this.srtc.destroyChannel(channel).catch(() => {});
    return media;
  },

  /** Reopens the microphone and camera that were on before the channel was joined again (errors are logged). */
  async _restoreMedia(media) {
    const open = async (what, fn) => {
      try { await fn(); } catch (e) { this._log('warn', `could not reopen the ${what}: ${e.message}`); this.emit('mediaRestoreDidFail', { kind: what, error: e }); }
    };
    if (media.mic) await open('mic', () => this.requestOpenMic({ deviceId: media.mic.deviceId ?? undefined, preset: media.mic.preset }));
    if (media.camera) await open('camera', () => this.requestOpenCamera({ deviceId: media.camera.deviceId ?? undefined, view: media.camera.view, preset: media.camera.preset }));
  },

  /**
   * Leaves the channel I am in for the one `rtc` grants (an admission, a move to or from a
   * sub-meeting), after any earlier switch; resolves once joined. My mic, camera and sharing end
   * with the old channel (the meeting closed them).
   */
  _switchChannel(rtc) {
    const run = async () => {
      if (!this._room) throw SMeetingError.notInMeeting();
      this._detachChannel();
      this._rtc = rtc;
      await this._joinChannel();
    };
    const switched = this._switching.then(run, run);
    this._switching = switched.catch(() => {});
    return switched;
  },

  /** The meeting's channel ended by itself (not by `exitRoom`) while I am still in the meeting: join it again. */
  _channelEnded(channel, reason) {
    this._updateState();
    if (channel !== this._channel || reason === 'client_leave') return;
    setTimeout(async () => {
      if (channel !== this._channel || !this._room || !this._client) return;
      this._log('info', `the meeting's channel ended (${reason}); joining it again`);
      const media = this._detachChannel();
      this._rejoining = true;
      this._updateState();
      try {
        await this._joinChannel();
        this._rejoining = false;
        this._updateState();
        await this._restoreMedia(media);
      } catch (e) {
        this._log('warn', `could not join the meeting's channel again: ${e.message}`);
        if (this._room) this._channelEnded(this._channel, 'error');
      }
    }, 1000);
  },
};
