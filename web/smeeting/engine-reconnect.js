// SMeeting web SDK: losing a connection. A dropped meeting WebSocket is not the end of the
// meeting: the server keeps the session for its grace period (docs/meeting-protocol.md, "Resuming
// a session"), so the SDK opens a new WebSocket and logs in with the session id and the last event
// it handled; the server sends what was missed, in order, and I never left the meeting for the
// others. A session lost with the server node that ran it (a cluster node drained or died: the
// login answers `rejoin`) is replaced by the new one, which enters the meeting again by itself.
// The meeting's SRTC channel is untouched meanwhile (it resumes its own session when its
// WebSocket drops: docs/sdk-web.md, Reconnection); a channel that ends while I am still in the
// meeting is joined again. The engine's `connectionState` tells the app which it is.

import { SMeetingError, MeetingErrorCode } from './errors.js';
import { ExitReason } from './models.js';
import { applyEnterSnapshot } from './engine-events.js';
import { handleMeetingEvent } from './engine-dispatch.js';

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
  if (!response.resumed && response.rejoin && (engine._room !== null || engine._waiting !== null)) {
    await rejoin(engine, r, client, response);
    return;
  }
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

/** Refusals of the entry again that a later attempt may not meet (the meeting's node is not ready yet). */
const RETRY_CODES = new Set([MeetingErrorCode.internalError, MeetingErrorCode.rateLimited]);

/**
 * The session was lost with the server node that ran it (it drained or died: the login answered
 * `rejoin` with a new session). I enter the meeting (or its waiting room) again on the new
 * session, where the server gives me my place back; members I knew and who are not back yet stay
 * listed (the server reports those who never come back as exited). The meeting's SRTC channel
 * moved on its own and is joined again only if it ended.
 */
async function rejoin(engine, r, client, response) {
  const oldSessionId = engine._sessionId;
  const oldLastSeq = engine._lastSeq;
  const meetingId = (engine._room ?? engine._waiting).meetingId;
  const known = new Map(engine._users);
  engine._log('info', `the meeting session was lost with its server node; entering meeting ${meetingId} again`);
  engine._sessionId = response.sessionId ?? null;
  engine._lastSeq = 0;
  engine._held = [];
  let answer;
  try {
    answer = await engine._call('enter_room', { meetingId });
  } catch (error) {
    engine._held = null;
    if (engine._client !== client) return;
    const e = SMeetingError.from(error);
    if (e.kind === 'internalError' || RETRY_CODES.has(e.code)) {
      // Another attempt from a new connection, with the lost session (which answers `rejoin` again).
      engine._log('warn', `entering again failed (${e.message}); retrying`);
      engine._client = null;
      engine._sessionId = oldSessionId;
      engine._lastSeq = oldLastSeq;
      engine._reconnect = r;
      client.close(1000, 'entering again failed');
      engine._updateState();
      schedule(engine, r);
      return;
    }
    engine._log('warn', `could not enter the meeting again: ${e.message}`);
    engine._tearDown(ExitReason.disconnected);
    engine._updateState();
    return;
  }
  const held = engine._held;
  engine._held = null;
  engine._rtc = answer.rtc ?? null;
  applyEnterSnapshot(engine, answer);
  if (!answer.waiting) for (const [uid, user] of known) if (!engine._users.has(uid)) engine._users.set(uid, user);
  for (const [type, data] of held) handleMeetingEvent(engine, type, data);
  if (!answer.waiting && engine._rtc && (!engine._channel || engine._channel.connectionState === 'disconnected')) {
    const media = engine._detachChannel();
    try {
      await engine._joinChannel();
      await engine._restoreMedia(media);
    } catch (e) {
      engine._log('warn', `could not join the meeting's channel again: ${e.message}`);
      if (engine._room) engine._channelEnded(engine._channel, 'error');
    }
  }
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
