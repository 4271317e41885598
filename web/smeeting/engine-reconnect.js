// SMeeting web SDK: losing a connection. When the meeting WebSocket drops, the SDK logs in again
// with the same token and, if it was in a meeting, enters it again and rejoins its channel, then
// reopens the microphone and camera that were on (docs/meeting-protocol.md: today a dropped
// meeting connection exits the meeting at once, so the others see the member exit and enter
// again). When only the SRTC channel drops, the channel resumes its session by itself
// (docs/sdk-web.md, Reconnection); a channel that ends while the member is still in the meeting is
// joined again. The engine's `connectionState` tells the app which it is.

import { SMeetingError, MeetingErrorCode } from './errors.js';
import { ExitReason } from './models.js';

/** Refusals after which trying again cannot help: the member is out for good. */
const FATAL_CODES = new Set([
  MeetingErrorCode.invalidToken, MeetingErrorCode.tokenExpired, MeetingErrorCode.tokenNotYetValid,
  MeetingErrorCode.meetingClosed, MeetingErrorCode.notFound, MeetingErrorCode.wrongPassword,
  MeetingErrorCode.roomLocked, MeetingErrorCode.notInvited, MeetingErrorCode.limitReached,
]);

/** The meeting WebSocket `client` closed without `logout`: get back in, or give up. */
export function meetingConnectionLost(engine, client, info) {
  if (engine._client !== client) return;
  engine._client = null;
  if (engine._uid === null) return;
  engine._log('info', `meeting connection lost (${info.code}${info.reason ? ' ' + info.reason : ''})`);
  const wasInRoom = engine._room !== null;
  engine._reconnect = {
    startedAt: performance.now(),
    attempt: 0,
    timer: 0,
    wasInRoom,
    enterReq: engine._enterReq,
    users: new Map(engine._users),
    media: wasInRoom ? engine._detachChannel() : null,
  };
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
  try {
    const { client, response } = await engine._connect(engine._token);
    if (engine._reconnect !== r) { client.close(1000, 'abandoned'); return; }
    engine._client = client;
    engine._nickname = response.nickname;
    if (r.wasInRoom) {
      await engine._enter(r.enterReq);
      replayDifferences(engine, r.users);
      await engine._joinChannel();
    }
  } catch (error) {
    if (engine._reconnect !== r) return;
    const e = SMeetingError.from(error);
    engine._log('warn', `reconnect attempt ${r.attempt} failed: ${e.message}`);
    if (FATAL_CODES.has(e.code)) { giveUp(engine, r, e); return; }
    const client = engine._client;
    engine._client = null;
    client?.close(1000, 'reconnect failed');
    if (engine._channel) engine._detachChannel();
    schedule(engine, r);
    return;
  }
  engine._reconnect = null;
  engine._updateState();
  engine.emit('meetingDidReconnect', { room: engine._room });
  if (r.media) await engine._restoreMedia(r.media);
}

/** Members who left or came while the connection was down, and changed states, as normal events. */
function replayDifferences(engine, before) {
  for (const [uid, user] of before) {
    if (uid !== engine._uid && !engine._users.has(uid)) engine.emit('userDidExit', { user, reason: ExitReason.disconnected });
  }
  for (const [uid, user] of engine._users) {
    const old = before.get(uid);
    if (!old) { if (uid !== engine._uid) engine.emit('userDidEnter', { user }); continue; }
    if (JSON.stringify(old) !== JSON.stringify(user)) engine.emit('userInfoDidChange', { user, fields: [], by: null });
  }
  engine.emit('roomInfoDidChange', { room: engine._room, fields: [], by: null });
}

function giveUp(engine, r, error) {
  if (engine._reconnect !== r) return;
  engine._reconnect = null;
  engine._log('warn', `meeting connection lost for good: ${error.message}`);
  if (engine._room !== null || r.wasInRoom) engine._tearDown(ExitReason.disconnected);
  engine._uid = null;
  engine._token = null;
  clearInterval(engine._ticker);
  engine._updateState();
  engine.emit('meetingConnectionDidLose', { error });
}

export const ConnectionMethods = {
  /**
   * `disconnected` (not logged in), `connected`, or `reconnecting` (the meeting connection or the
   * meeting's media channel is being restored). `connectionStateDidChange` tells each change.
   */
  get connectionState() { return this._state; },

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
   * Drops the meeting's channel but keeps the meeting: views stay bound (they show the new
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

  /** Reopens the microphone and camera that were on before a reconnection (errors are logged). */
  async _restoreMedia(media) {
    const open = async (what, fn) => {
      try { await fn(); } catch (e) { this._log('warn', `could not reopen the ${what}: ${e.message}`); this.emit('mediaRestoreDidFail', { kind: what, error: e }); }
    };
    if (media.mic) await open('mic', () => this.requestOpenMic({ deviceId: media.mic.deviceId ?? undefined, preset: media.mic.preset }));
    if (media.camera) await open('camera', () => this.requestOpenCamera({ deviceId: media.camera.deviceId ?? undefined, view: media.camera.view, preset: media.camera.preset }));
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
