// SRTC web SDK: losing the signaling connection. The server keeps the session for
// `reconnect_grace_seconds`; the channel reconnects with backoff and resumes it with
// `join {session_id}` (docs/protocol.md, Reconnection), then brings users and tracks up to date.
// A broken media path is restarted with `restart_ice`.

import { ServerErrorCode } from './errors.js';
import { ConnectionState, DisconnectReason, channelInfo, trackInfo, userInfo } from './models.js';
import { handleEvent, onServerEvent } from './channel-dispatch.js';
import { trackAdded, trackRemoved, trackUpdated, userJoined, userLeft, userUpdated } from './channel-events.js';

/** Attempts stop this long before the grace period ends, so the last one can still resume. */
const GRACE_MARGIN_MS = 500;
/** After a "retry" answer (internal_error 50001: the channel is moving, or the node is draining) the
 * answer changes within seconds: ask again this soon, without climbing the backoff (docs/deploy.md). */
const RETRY_ANSWER_DELAY_MS = 250;
/** A media connection `disconnected` this long is restarted. */
const ICE_DISCONNECTED_RESTART_MS = 3000;
/** When a media connection loses its path, a ping unanswered for four of the connection's last
 * round trips, within these bounds, takes the signaling connection for dead too (docs/network.md,
 * "Addresses that change"): a device that changed address has no answer coming at all. */
const SIGNAL_CHECK_MIN_TIMEOUT_MS = 400;
const SIGNAL_CHECK_MAX_TIMEOUT_MS = 1000;
/** A silent path still silent after a resume is looked at once more this much later. */
const SILENT_PATH_RECHECK_MS = 150;

/** How long a check of `signal` waits for the ping's answer. */
export function signalCheckTimeout(signal) {
  const rtt = signal.lastRttMs;
  if (rtt === undefined) return SIGNAL_CHECK_MAX_TIMEOUT_MS;
  return Math.min(SIGNAL_CHECK_MAX_TIMEOUT_MS, Math.max(SIGNAL_CHECK_MIN_TIMEOUT_MS, 4 * rtt));
}

/** The signaling connection `signal` closed without `leave`: reconnect, or end when never joined. */
export function connectionLost(ch, signal) {
  if (ch._signal !== signal) return;
  ch._signal = null;
  if (ch._state !== ConnectionState.connected) return;
  ch._reconnect = { lostAt: performance.now(), attempt: 0, backoff: 0, retrySoon: false, timer: 0, generation: nextGeneration(ch) };
  // A browser that knows it was offline says when it is online again: try then, not at the
  // next step of the backoff (docs/network.md, "Addresses that change").
  ch._reconnect.online = () => reconnectNow(ch);
  globalThis.addEventListener?.('online', ch._reconnect.online);
  ch._setState(ConnectionState.reconnecting);
  ch.emit('channelIsReconnecting');
  schedule(ch, ch._reconnect.generation);
}

/** The server ended the session (`disconnected` event): no reconnection. */
function serverEnded(ch, reason, message) {
  ch._log('info', `the server ended the session: ${reason}${message ? ' ' + message : ''}`);
  ch._teardown(reason ?? DisconnectReason.error, null);
}
onServerEvent(['disconnected'], (ch, data) => serverEnded(ch, data.reason, data.message));

/** Cancels a pending reconnection (leave, teardown). */
export function stopReconnecting(ch) {
  if (!ch._reconnect) return;
  clearTimeout(ch._reconnect.timer);
  globalThis.removeEventListener?.('online', ch._reconnect.online);
  ch._reconnect = null;
}

/** The browser is online again: an attempt now, with the backoff from the start. An attempt
 * under way began offline and fails: a new generation makes it give up when it ends. */
function reconnectNow(ch) {
  const r = ch._reconnect;
  if (!r) return;
  ch._log('info', 'the browser is online again: reconnecting now');
  clearTimeout(r.timer);
  r.generation = nextGeneration(ch);
  r.backoff = 0;
  attempt(ch, r.generation);
}

/** Attempts are numbered across the channel's life, so one that ends late never passes for a
 * later attempt's. */
function nextGeneration(ch) {
  ch._reconnectGenerations = (ch._reconnectGenerations ?? 0) + 1;
  return ch._reconnectGenerations;
}

function schedule(ch, generation) {
  const r = ch._reconnect;
  if (!r || r.generation !== generation) return;
  const delays = ch.options.reconnectDelaysMs;
  const backoff = (step) => delays[Math.min(step, delays.length - 1)] ?? 1000;
  const delay = r.retrySoon ? Math.min(RETRY_ANSWER_DELAY_MS, backoff(r.backoff + 1)) : backoff(r.backoff);
  const deadline = r.lostAt + ch._graceSeconds * 1000 - GRACE_MARGIN_MS;
  if (performance.now() + delay >= deadline) {
    ch._teardown(DisconnectReason.timeout, null);
    return;
  }
  r.timer = setTimeout(() => attempt(ch, generation), delay);
}

/** One attempt: a new WebSocket and `join` with the session id. */
async function attempt(ch, generation) {
  const r = ch._reconnect;
  if (!r || r.generation !== generation) return;
  ch._log('debug', `reconnect attempt ${r.attempt + 1}`);
  const signal = ch._makeSignal(ch._params.wsURL);
  ch._signal = signal;
  ch._heldEvents = [];
  let response;
  try {
    await signal.connect(5000);
    response = await ch._joinRequest(signal, ch._sessionId);
  } catch (error) {
    if (ch._reconnect?.generation !== generation) { signal.close(1000, 'abandoned'); return; }
    if (ch._signal === signal) ch._signal = null;
    ch._heldEvents = null;
    signal.close(1000, 'reconnect failed');
    ch._log('warn', `reconnect attempt ${r.attempt + 1} failed: ${error.message}`);
    const fatal = fatalReason(error);
    if (fatal) { ch._teardown(fatal, error); return; }
    r.attempt += 1;
    r.retrySoon = error?.kind === 'server' && Number(error.code) === ServerErrorCode.internalError;
    if (!r.retrySoon) r.backoff += 1;
    schedule(ch, generation);
    return;
  }
  if (ch._reconnect?.generation !== generation || ch._signal !== signal) { signal.close(1000, 'abandoned'); return; }
  if (!response.resumed) {
    // The server had already ended the session; this join made a new one, which is left.
    signal.request('leave', undefined, { timeoutMs: 2000 }).catch(() => {}).finally(() => signal.close(1000, 'not resumed'));
    ch._signal = null;
    ch._teardown(DisconnectReason.timeout, null);
    return;
  }
  stopReconnecting(ch);
  const held = ch._heldEvents ?? [];
  ch._heldEvents = null;
  ch._sessionId = response.sessionId;
  ch._graceSeconds = response.reconnectGraceSeconds ?? ch._graceSeconds;
  // Resumed on another node: the connections to the old one are closed before any event of
  // the new one (its subscriber offer) is handled.
  if (response.moved) dropMovedConnections(ch);
  ch._setState(ConnectionState.connected);
  ch.emit('didReconnect', channelInfo(response.channel));
  catchUp(ch, response);
  for (const [type, data] of held) handleEvent(ch, type, data);
  if (response.moved) republish(ch);
  else restartBrokenTransports(ch);
}

/** Closes the peer connections of the node the session left. */
function dropMovedConnections(ch) {
  ch._publisher?.close();
  ch._subscriber?.close();
  ch._publisher = null;
  ch._subscriber = null;
}

/**
 * Publishes every local track again on a new connection, in one offer; the server gives each
 * its old id and makes the subscriptions again itself (docs/protocol.md, "Moving to another node").
 */
function republish(ch) {
  const locals = [...ch._localTracks];
  if (locals.length === 0) return;
  ch._publisherFor().publish(locals).catch((e) => ch._log('warn', `could not publish again after moving: ${e.message}`));
}

/** Server refusals that no retry can fix end the session at once. */
function fatalReason(error) {
  if (error?.kind !== 'server') return null;
  switch (error.code) {
    case ServerErrorCode.tokenExpired: return DisconnectReason.tokenExpired;
    case ServerErrorCode.invalidToken:
    case ServerErrorCode.tokenNotYetValid:
    case ServerErrorCode.permissionDenied:
    case ServerErrorCode.invalidParameter: return DisconnectReason.error;
    default: return null;
  }
}

/**
 * Events missed while disconnected are replayed as the difference between what the channel
 * knew and the resume response. Users gone meanwhile leave with `client_leave` (the server
 * does not keep the real reason).
 */
function catchUp(ch, response) {
  const info = channelInfo(response.channel);
  if (JSON.stringify(ch._info) !== JSON.stringify(info)) {
    ch._info = info;
    ch.emit('didUpdateInfo', info);
  }
  const me = userInfo(response.me);
  if (ch._me?.nickname !== me.nickname || ch._me?.custom !== me.custom) {
    ch._me = me;
    ch.emit('meDidUpdate', me);
  }
  const users = (response.users ?? []).map(userInfo);
  const fresh = new Map(users.map((u) => [u.uid, u]));
  for (const old of ch.users) {
    const now = fresh.get(old.uid);
    if (!now || now.joinedAt !== old.joinedAt) userLeft(ch, old.uid, DisconnectReason.clientLeave);
  }
  for (const user of users) {
    const old = ch._users.get(user.uid);
    if (!old) { userJoined(ch, user); continue; }
    if (old.nickname !== user.nickname || old.custom !== user.custom) userUpdated(ch, user);
    const ids = new Set(user.tracks.map((t) => t.id));
    for (const t of [...old.tracks]) if (!ids.has(t.id)) trackRemoved(ch, t.id, user.uid);
    for (const t of user.tracks) {
      const known = old.tracks.find((k) => k.id === t.id);
      if (!known) trackAdded(ch, t, user.uid);
      else if (JSON.stringify(known) !== JSON.stringify(t)) trackUpdated(ch, t, user.uid);
    }
  }
  // Hidden publishers (server composites): only their tracks.
  const hidden = (response.hiddenTracks ?? []).map(trackInfo);
  const hiddenIds = new Set(hidden.map((t) => t.id));
  for (const old of [...ch._hiddenPublishers.values()]) {
    for (const t of [...old.tracks]) if (!hiddenIds.has(t.id)) trackRemoved(ch, t.id, old.uid);
  }
  for (const t of hidden) {
    const known = ch._hiddenPublishers.get(t.uid)?.tracks.find((k) => k.id === t.id);
    if (!known) trackAdded(ch, t, t.uid);
    else if (JSON.stringify(known) !== JSON.stringify(t)) trackUpdated(ch, t, t.uid);
  }
}

/** After a resume, a media connection that broke meanwhile (or went silent) gets an ICE restart,
 * or a new connection when it is still silent (`renewTransport`). */
function restartBrokenTransports(ch) {
  for (const [transport, pc] of Object.entries(ch.peerConnections)) {
    const broken = pc?.iceConnectionState === 'failed' || pc?.iceConnectionState === 'disconnected';
    if (pc && broken) restartIce(ch, transport);
    else if (pc && ch._silentPaths?.has(transport)) repairSilentPath(ch, transport, pc);
  }
  // A renewal whose ask for the new offer went into the connection that dropped.
  if (ch._subscriber?.renewing && !ch._subscriber.pc) {
    ch._subscriber.requestRenewedOffer().catch((e) => ch._log('warn', `could not ask for a new subscribe connection: ${e.message}`));
  }
}

/** A connection that went silent with the signaling connection: still silent now that the
 * session is resumed on a new WebSocket, it lost its address (the device has a new one) and gets
 * a new connection; receiving again, its link was down and came back with the same address, and
 * an ICE restart (the server asks for key frames on its first path) is all it needs. */
async function repairSilentPath(ch, transport, pc) {
  // A link that just came back may not have carried a packet yet: audio comes every 20 ms.
  const again = async () => await ch._pathMonitor.receivingAgain(transport, pc)
    || (await new Promise((resolve) => setTimeout(resolve, SILENT_PATH_RECHECK_MS)), await ch._pathMonitor.receivingAgain(transport, pc));
  if (await again()) restartIce(ch, transport);
  else if (ch.peerConnections[transport] === pc) renewTransport(ch, transport);
}

/** A media path broke with the signaling connection and stayed silent: the device has a new
 * address. An ICE restart keeps Chromium's old candidate pair, left only for a new pair that wins
 * Chromium's own comparison; a new connection has no old pair and is up as soon as a check
 * passes, so it replaces the old one (docs/network.md, "Addresses that change"). Where that
 * cannot be done, ICE is restarted. */
function renewTransport(ch, transport) {
  const side = transport === 'publish' ? ch._publisher : ch._subscriber;
  if (!side) return;
  ch._log('info', `a new ${transport} connection in place of the broken one`);
  side.renew().then((renewed) => {
    if (!renewed) return restartIce(ch, transport);
    ch._log('info', `the ${transport} transport has a new connection`);
    ch._silentPaths?.delete(transport);
    // The subscribe side's new connection comes with the server's offer (`Subscriber` says so).
    if (transport === 'publish') ch.emit('transportDidRenew', transport);
  }, (e) => ch._log('warn', `new ${transport} connection failed: ${e.message}`));
}

/** A connected transport stopped receiving (`PathMonitor`). The device may have a new address:
 * then its signaling connection is dead too, the check below closes it, and the resume restarts
 * ICE on the silent transport. When the server answers the ping the silence is the media's own
 * (nothing is sent to us): nothing is done, and a path that did break is restarted when the
 * browser reports it `disconnected`. */
export function mediaPathSilent(ch, transport) {
  (ch._silentPaths ??= new Set()).add(transport);
  checkSignal(ch, () => ch._silentPaths.delete(transport));
}

/** A media connection's ICE state changed: restart it when it failed or stays disconnected. */
export function transportStateChanged(ch, transport, iceState) {
  ch._iceTimers ??= {};
  clearTimeout(ch._iceTimers[transport]);
  if (iceState === 'disconnected' || iceState === 'failed') checkSignal(ch);
  if (iceState === 'failed') restartIce(ch, transport);
  else if (iceState === 'disconnected') {
    ch._iceTimers[transport] = setTimeout(() => {
      const pc = ch.peerConnections[transport];
      if (pc && (pc.iceConnectionState === 'disconnected' || pc.iceConnectionState === 'failed')) restartIce(ch, transport);
    }, ICE_DISCONNECTED_RESTART_MS);
  }
}

/** A media path broke: the signaling connection may have broken with it (the device's address
 * changed, and its TCP connection belongs to the old one). A ping unanswered within
 * `signalCheckTimeout` closes it, so the channel resumes on a new connection at once and
 * restarts ICE there, instead of sending `restart_ice` into a dead socket and waiting for the
 * keep-alive's own timeout (10 s). */
function checkSignal(ch, alive = () => {}) {
  const signal = ch._signal;
  if (ch._state !== ConnectionState.connected || !signal?.isOpen || ch._signalCheck === signal) return;
  ch._signalCheck = signal;
  signal.request('ping', undefined, { timeoutMs: signalCheckTimeout(signal) }).then(alive, (e) => {
    if (e.kind === 'timeout' && ch._signal === signal) signal.close(4000, 'ping timeout');
  }).finally(() => {
    if (ch._signalCheck === signal) ch._signalCheck = null;
  });
}

function restartIce(ch, transport) {
  if (ch._state !== ConnectionState.connected) return; // done after the resume
  ch._log('info', `restarting ICE of the ${transport} transport`);
  const side = transport === 'publish' ? ch._publisher : ch._subscriber;
  side?.restartIce().then(() => ch._silentPaths?.delete(transport),
    (e) => ch._log('warn', `ICE restart of ${transport} failed: ${e.message}`));
}
