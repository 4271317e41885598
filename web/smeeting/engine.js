// SMeeting web SDK: the engine. Login, meetings before they start, entering and exiting (the
// waiting room included), and the in-meeting snapshot. Meeting events are applied in
// engine-events.js, media in engine-media.js, host controls in engine-admin.js, the waiting room in
// engine-waiting.js, sub-meetings in engine-sub-meetings.js, sign-in and roll call in
// engine-sign-in.js, resuming a dropped connection in engine-reconnect.js.

import { SRTCEngine } from '../srtc.js';
import { SignalClient } from '../srtc/signal-client.js';
import { SMeetingError } from './errors.js';
import { MeetingEventTarget, mixin } from './event-target.js';
import { ExitReason, meetingURL, snakeize } from './models.js';
import { applyEnterSnapshot } from './engine-events.js';
import { handleMeetingEvent } from './engine-dispatch.js';
import { MediaMethods } from './engine-media.js';
import { MIX_COMPOSITE_UID, McuMethods } from './engine-mcu.js';
import { AdminMethods } from './engine-admin.js';
import { ConnectionMethods, meetingConnectionLost } from './engine-reconnect.js';
import { WaitingMethods } from './engine-waiting.js';
import { SubMeetingMethods } from './engine-sub-meetings.js';
import { SignInMethods } from './engine-sign-in.js';
import { E2EEMethods } from './engine-e2ee.js';
import { RemoteVideoViews } from './remote-video.js';
import { RemoteAudio } from './remote-audio.js';

/** SDK version. */
export const SDK_VERSION = '0.1.0';

const DEFAULT_OPTIONS = {
  /** Answer time allowed for a meeting request. */
  requestTimeoutMs: 10000,
  /** A `ping` goes out after this long without a request; an unanswered one counts as a lost connection. */
  pingIntervalMs: 10000,
  /** How long the SDK tries to resume the meeting session after losing its connection. */
  reconnectTimeoutMs: 30000,
  /** Delays before reconnection attempts (the last repeats). */
  reconnectDelaysMs: [0, 500, 1000, 2000, 4000],
  /** How long `startPlayRemoteVideo` waits for a track the meeting says is published. */
  trackWaitMs: 5000,
  /** Options of the SRTC channel the meeting joins (see docs/sdk-web.md, `SRTCChannel`). */
  channel: {},
  /** `debug`, `info`, `warn`, `error` or `off` (meeting and channel). */
  logLevel: 'warn',
};

/**
 * The SMeeting SDK's entry point: login, meeting management, entering and exiting meetings,
 * media, host controls, chat and hands. Built on the SRTC web SDK (`meeting.srtc`, its channel
 * `meeting.channel`) and the meeting WebSocket (docs/meeting-protocol.md).
 *
 * ```js
 * const meeting = new SMeetingEngine('https://rtc.example.com');
 * await meeting.login(memberToken);                  // from your backend: /stm/srvapi/v1/member/grant
 * const info = await meeting.createRoom({ title: 'Weekly' });
 * await meeting.enterRoom({ roomNo: info.roomNo });
 * ```
 */
export class SMeetingEngine extends MeetingEventTarget {
  /** The uid a `mix` meeting's composite video is published under (`startPlayRemoteVideoMcu`). */
  static mixCompositeUid = MIX_COMPOSITE_UID;

  /**
   * @param {string} url the server's base URL (`http(s)://host:port`): the meeting WebSocket is
   *   `…/stm/v1/ws`, and the meeting's SRTC channel is joined there too.
   * @param {object} options see `DEFAULT_OPTIONS` above (docs/sdk-web.md).
   */
  constructor(url, options = {}) {
    super();
    this.url = url;
    this.options = { ...DEFAULT_OPTIONS, ...options };
    /** The shared SRTC engine: use it for what the meeting layer does not cover; never create another. */
    this.srtc = new SRTCEngine({ logLevel: this.options.logLevel, ...this.options.channel });
    // Internal state; read it through the accessors below.
    this._client = null;
    this._token = null;
    this._uid = null;
    this._nickname = null;
    /** The meeting session (docs/meeting-protocol.md, Resuming a session) and the last event handled. */
    this._sessionId = null;
    this._lastSeq = 0;
    this._room = null;
    /** The room whose waiting room I am in (then `_room` is null). */
    this._waiting = null;
    this._users = new Map();
    /** Hosts and co-hosts: who waits, by uid. */
    this._waitingUsers = new Map();
    this._subMeetings = [];
    this._signIn = null;
    this._rollCalls = new Map();
    /** Channel switches (admission, sub-meeting moves) run one after the other. */
    this._switching = Promise.resolve();
    /** uid → connection quality level, once it differs from `excellent`. */
    this._quality = new Map();
    this._rtc = null;
    this._held = null;
    this._channel = null;
    this._channelOffs = [];
    this._local = { mic: null, camera: null, screen: null };
    this._views = new RemoteVideoViews(this);
    /** view → uid of the composite `startPlayRemoteVideoMcu` shows in it. */
    this._mcuViews = new Map();
    this._audio = new RemoteAudio(this);
    this._state = 'disconnected';
    this._reconnect = null;
    this._rejoining = false;
    this._ticker = 0;
  }

  // MARK: - Login

  /** My uid once logged in. */
  get currentUserId() { return this._uid; }
  /** My nickname once logged in (the one the token names, or my uid). */
  get currentNickname() { return this._nickname; }
  /** Whether `login` succeeded and the meeting connection is up (or being restored). */
  get isLoggedIn() { return this._uid !== null && (this._client !== null || this._reconnect !== null); }

  /**
   * Logs in with a member token issued by your backend (`POST /stm/srvapi/v1/member/grant`).
   * @returns {Promise<{uid: string, nickname: string, serverTime: number}>}
   */
  async login(token) {
    if (this._client || this._reconnect) throw new SMeetingError('apiError', 'already logged in', { code: 40901 });
    const { client, response } = await this._connect({ token: String(token ?? '') });
    this._client = client;
    this._token = String(token);
    this._uid = response.uid;
    this._nickname = response.nickname;
    this._sessionId = response.sessionId ?? null;
    this._lastSeq = 0;
    this._setState('connected');
    this._startTicker();
    return response;
  }

  /** Logs out; exits the meeting first if still in one. Never throws. */
  async logout() {
    if (this.isInRoom || this.isInWaitingRoom) await this.exitRoom();
    this._stopReconnecting();
    clearInterval(this._ticker);
    const client = this._client;
    this._client = null;
    this._uid = null;
    this._token = null;
    this._sessionId = null;
    client?.close(1000, 'logout');
    this._setState('disconnected');
  }

  // MARK: - Before the meeting

  /**
   * Creates a meeting hosted by me.
   * @param {{title: string, type?: string, mode?: string, attendType?: string, password?: string,
   *   conferee?: string[], planTime?: number, planDur?: number, waitingRoom?: boolean}} req
   * @returns {Promise<object>} the `MeetingInfo` (`meetingId`, `roomNo`, …).
   */
  createRoom(req) {
    return this._call('create_room', { type: 'instant', mode: 'normal', attendType: 'open', ...req });
  }

  /** Changes a meeting I host: `req` has any of `title, mode, attendType, password, conferee, planTime, planDur, waitingRoom`. */
  updateRoom(meetingId, req) { return this._call('update_room', { meetingId, update: req }); }

  /** Cancels a meeting I host that has not started. */
  async cancelRoom(meetingId) { await this._call('cancel_room', { meetingId }); }

  /** A meeting by `{meetingId}` or `{roomNo}`. */
  detailRoom({ meetingId, roomNo } = {}) { return this._call('detail_room', { meetingId, roomNo }); }

  /** Meetings I host or am invited to that are not over, soonest first: `{list, page, pageSize, total}`. */
  attendeeRoom(page = 1, pageSize = 20) { return this._call('attendee_room', { page, pageSize }); }

  /** Meetings I entered, the most recent first: `{list, page, pageSize, total}`. */
  attendedRoom(page = 1, pageSize = 20) { return this._call('attended_room', { page, pageSize }); }

  /**
   * The sign-ins and roll calls of a meeting I host, during or after it:
   * `{meetingId, results: [SignInResult]}`.
   */
  getSignInResults(meetingId) { return this._call('sign_in_results', { meetingId }); }

  // MARK: - Enter and exit

  /** Whether I am in a meeting (admitted; not while waiting). */
  get isInRoom() { return this._room !== null; }

  /** Whether I wait in a meeting's waiting room. */
  get isInWaitingRoom() { return this._waiting !== null; }

  /** The room whose waiting room I am in, or `null`. */
  getWaitingRoomInfo() { return this._waiting; }

  /**
   * Enters a meeting by `meetingId` or `roomNo` (with `password` when it has one): the server
   * admits me and grants the meeting's SRTC channel, which the SDK joins; remote audio is then
   * subscribed and played automatically. With the meeting's waiting room on, it resolves at once
   * with `isInWaitingRoom` true (`didEnterWaitingRoom`); `wasAdmittedFromWaitingRoom` follows once
   * a host lets me in (the SDK then joins the channel), `wasRemovedFromWaitingRoom` if sent away.
   * @param {{meetingId?: string, roomNo?: string, password?: string, nickname?: string}} req
   * @returns {Promise<object>} the `RoomInfo`.
   */
  async enterRoom(req) {
    this._loggedIn();
    if (this._room || this._waiting || this._held) throw new SMeetingError('apiError', 'already in a meeting', { code: 40901 });
    const response = await this._enter(req);
    if (response.waiting) {
      this.emit('didEnterWaitingRoom', { room: this._waiting });
      return this._waiting;
    }
    try {
      await this._joinChannel();
    } catch (error) {
      await this._call('exit_room').catch(() => {});
      this._tearDown(null);
      throw SMeetingError.from(error);
    }
    return this._room;
  }

  /** Exits the current meeting or its waiting room (the login stays). Never throws; does nothing outside one. */
  async exitRoom() {
    if (!this._room && !this._waiting) return;
    // While the session is being resumed, the exit is sent once it is back.
    if (this._reconnect) this._reconnect.exitAfterResume = true;
    await this._call('exit_room').catch(() => {});
    await this._tearDown(ExitReason.exit);
  }

  // MARK: - Snapshot

  /** The current `RoomInfo`; `null` outside a meeting. */
  getRoomInfo() { return this._room; }

  /** Every member, me included, in order of entry. */
  getUsersInfoList() {
    return [...this._users.values()].sort((a, b) => (a.enteredAt - b.enteredAt) || (a.uid < b.uid ? -1 : 1));
  }

  /** Every member by uid (a `Map`). */
  getUsersInfo() { return new Map(this._users); }

  /** One member; `notInMeeting` outside a meeting, `internalError` for an unknown uid. */
  getUserInfo(uid) {
    if (!this._room) throw SMeetingError.notInMeeting();
    const user = this._users.get(uid);
    if (!user) throw SMeetingError.internal(`${uid} is not in the meeting`);
    return user;
  }

  /** My `MeetingUserInfo` in the meeting, or `null`. */
  get me() { return this._users.get(this._uid) ?? null; }

  /**
   * A member's (or my) connection quality: `excellent`, `good`, `poor` or `lost`. Every member
   * starts `excellent`, as the server's levels do; `connectionQualityDidChange` tells changes.
   */
  getConnectionQuality(uid = this._uid) {
    return this._quality.get(uid) ?? 'excellent';
  }

  /** The meeting's SRTC channel while in a meeting (`meeting.srtc.channels[0]`), else `null`. */
  get channel() { return this._channel; }

  // MARK: - Internals

  _log(level, message) {
    const levels = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };
    if ((levels[level] ?? 1) < (levels[this.options.logLevel] ?? 2)) return;
    (console[level] ?? console.log)(`[smeeting] ${message}`);
  }

  /** Opens a meeting WebSocket and logs in on it (`login`: `{token, sessionId?, lastSeq?}`). */
  async _connect(login) {
    let client = null;
    client = new SignalClient(meetingURL(this.url), {
      requestTimeoutMs: this.options.requestTimeoutMs,
      log: (level, message) => this._log(level, message),
      onEvent: (type, data, seq) => { if (this._client === client) this._onEvent(type, data, seq); },
      onClose: (info) => { if (this._client === client) meetingConnectionLost(this, client, info); },
    });
    try {
      await client.connect(this.options.requestTimeoutMs);
      const response = await client.request('login', snakeize(login));
      return { client, response };
    } catch (error) {
      client.close(1000, 'login failed');
      throw SMeetingError.from(error);
    }
  }

  /** Sends a request (camelCase data, sent snake_case); rejects with an `SMeetingError`. */
  async _call(type, data) {
    const client = this._loggedIn();
    try {
      return await client.request(type, data === undefined ? undefined : snakeize(data));
    } catch (error) {
      throw SMeetingError.from(error);
    }
  }

  _loggedIn() {
    if (!this._client) throw this._reconnect ? SMeetingError.internal('reconnecting to the meeting') : SMeetingError.notLoggedIn();
    return this._client;
  }

  _inMeeting() {
    this._loggedIn();
    if (!this._room || !this._channel) throw SMeetingError.notInMeeting();
    return this._channel;
  }

  /** In a meeting (its channel may be switching, as after a move to a sub-meeting). */
  _inRoom() {
    this._loggedIn();
    if (!this._room) throw SMeetingError.notInMeeting();
  }

  /** `enter_room`: events that arrive before the answer wait for its snapshot. */
  async _enter(req) {
    this._held = [];
    let response;
    try {
      response = await this._call('enter_room', { meetingId: req.meetingId, roomNo: req.roomNo, password: req.password, nickname: req.nickname });
    } catch (error) {
      this._held = null;
      throw error;
    }
    this._rtc = response.rtc ?? null;
    const held = this._held;
    this._held = null;
    applyEnterSnapshot(this, response);
    for (const [type, data] of held) handleMeetingEvent(this, type, data);
    return response;
  }

  /** An event from the meeting WebSocket: one a resumed session sends again is skipped. */
  _onEvent(type, data, seq) {
    if (seq !== undefined) {
      if (seq <= this._lastSeq) return;
      this._lastSeq = seq;
    }
    if (this._held) this._held.push([type, data]);
    else if (this._room || this._waiting) handleMeetingEvent(this, type, data);
  }

  /** Joins the meeting's SRTC channel with the token `enter_room` granted. */
  async _joinChannel() {
    const channel = this.srtc.createChannel(await this._prepareE2EE());
    this._channel = channel;
    this._channelOffs = [
      ...this._audio.watch(channel),
      ...this._views.watch(channel),
      channel.on('connectionStateDidChange', () => this._updateState()),
      channel.on('didChangeActiveSpeakers', (snapshot) => this.emit('activeSpeakersDidChange', snapshot)),
      // Live captions the server runs in the meeting's channel (docs/captions.md).
      channel.on('didReceiveCaption', (caption) => this.emit('captionDidArrive', { caption })),
      channel.on('didChangeConnectionQuality', ({ uid, quality }) => this._qualityChanged(uid, quality)),
      channel.on('didReceiveQualityReport', (report) => this._qualityChanged(report.uid ?? this._uid, report.quality)),
      channel.on('didDisconnect', (reason) => this._channelEnded(channel, reason)),
    ];
    await channel.join(this.url, this._rtc.token, { nickname: this.me?.nickname ?? this._nickname });
    this._startKeyExchange(channel);
  }

  /**
   * Leaves the meeting state at once and the SRTC channel; `reason` null when entering itself
   * failed (no exit event then). Local capture stops.
   */
  async _tearDown(reason) {
    const channel = this._channel;
    const wasIn = this._room !== null || this._waiting !== null;
    this._room = null;
    this._waiting = null;
    this._users.clear();
    this._waitingUsers.clear();
    this._subMeetings = [];
    this._signIn = null;
    this._rollCalls.clear();
    this._quality.clear();
    this._held = null;
    this._rtc = null;
    this._channel = null;
    this._rejoining = false;
    for (const off of this._channelOffs) off();
    this._channelOffs = [];
    for (const off of this._e2eeOffs ?? []) off();
    this._e2eeOffs = [];
    this._e2ee = null;
    this._views.reset();
    this._mcuViews.clear();
    this._audio.reset();
    for (const kind of ['mic', 'camera', 'screen']) this._stopLocal(kind);
    if (reason && wasIn) this.emit('didExitRoom', { reason });
    this._updateState();
    if (channel) await this.srtc.destroyChannel(channel).catch(() => {});
  }

  _qualityChanged(uid, quality) {
    const previous = this.getConnectionQuality(uid);
    if (!uid || !quality || previous === quality) return;
    this._quality.set(uid, quality);
    this.emit('connectionQualityDidChange', { uid, quality, previous });
  }

  _setState(state) {
    if (this._state === state) return;
    const previous = this._state;
    this._state = state;
    this.emit('connectionStateDidChange', { state, previous });
  }
}

mixin(SMeetingEngine, MediaMethods, McuMethods, AdminMethods, ConnectionMethods, WaitingMethods, SubMeetingMethods, SignInMethods, E2EEMethods);
