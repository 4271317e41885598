// SRTC web SDK: server events. Each updates the channel's state, then tells the listeners.

import { ConnectionState, channelInfo, customMessage, trackInfo, userInfo } from './models.js';
import { RemoteTrack } from './tracks.js';
import { handleEvent, onServerEvent } from './channel-dispatch.js';

/**
 * Applies the first join's response: state, `didJoinSucceed`, the users and tracks already
 * there (`userDidJoin`, `didAddTrack`), then the events that arrived meanwhile.
 */
export function applyFirstJoin(ch, response) {
  ch._sessionId = response.sessionId;
  ch._info = channelInfo(response.channel);
  ch._me = userInfo(response.me);
  // End-to-end encryption sends as this uid from now on (frames wait for the derived secret).
  ch._e2ee?.start(ch._me.uid);
  ch._graceSeconds = response.reconnectGraceSeconds ?? 20;
  // The session's TURN servers and credentials, for the connections made from now on.
  ch._turnServers = response.iceServers ?? [];
  ch._users.clear();
  ch._hiddenPublishers.clear();
  ch._remoteTracks.clear();
  const held = ch._heldEvents ?? [];
  ch._heldEvents = null;
  ch._setState(ConnectionState.connected);
  ch.emit('didJoinSucceed', ch._info);
  for (const user of response.users ?? []) userJoined(ch, user);
  for (const track of response.hiddenTracks ?? []) trackAdded(ch, track, track.uid);
  for (const [type, data] of held) handleEvent(ch, type, data);
}

// The events of the channel's users and tracks (docs/protocol.md, Events); `disconnected` is
// channel-reconnect's.
onServerEvent(['user_joined'], userJoined);
onServerEvent(['user_updated'], userUpdated);
onServerEvent(['user_left'], (ch, data) => userLeft(ch, data.uid, data.reason));
onServerEvent(['me_updated'], (ch, data) => {
  ch._me = userInfo(data);
  ch.emit('meDidUpdate', ch._me);
});
onServerEvent(['track_added'], (ch, data) => trackAdded(ch, data.track, data.uid));
onServerEvent(['track_updated'], (ch, data) => trackUpdated(ch, data.track, data.uid));
onServerEvent(['track_removed'], (ch, data) => trackRemoved(ch, data.track?.id, data.uid));
onServerEvent(['subscriber_offer'], (ch, data) => {
  ch._subscriberFor().handleOffer(data).catch((e) => ch._log('warn', `subscriber offer failed: ${e.message}`));
});
// Which of a local track's layers anyone receives (dynacast, docs/protocol.md).
onServerEvent(['layers_needed'], (ch, data) => {
  const local = [...ch._localTracks].find((t) => t.id === data.trackId);
  if (local && ch.options.dynacast) applyNeededLayers(ch, local, data.layers ?? []);
  ch.emit('didUpdateLayersNeeded', data);
});
onServerEvent(['subscription_ended'], (ch, data) => {
  const track = ch._remoteTracks.get(data.trackId);
  if (track) {
    track.isSubscribed = false;
    track.requestedLayer = null;
    ch._receiveMonitor.unsubscribed(track);
    ch._adaptive?.unsubscribed(track);
  }
  ch.emit('subscriptionDidEnd', data);
});
onServerEvent(['message'], (ch, data) => ch.emit('didReceiveCustomMessage', customMessage(data)));
onServerEvent(['channel_updated'], (ch, data) => {
  ch._info = channelInfo(data);
  ch.emit('didUpdateInfo', ch._info);
});
onServerEvent(['quality_report'], (ch, data) => ch.emit('didReceiveQualityReport', data));
onServerEvent(['connection_quality'], (ch, data) => ch.emit('didChangeConnectionQuality', data));
onServerEvent(['active_speakers'], (ch, data) => ch.emit('didChangeActiveSpeakers', { speakers: data.speakers ?? [] }));
// Live captions (docs/protocol.md, "Captions"): a speaker's partials, then their turn's final.
// `caption` is the same event under the name docs/captions.md uses.
onServerEvent(['caption'], (ch, data) => {
  const caption = { uid: data.uid, text: data.text, final: data.final === true, startMs: data.startMs, endMs: data.endMs };
  ch.emit('didReceiveCaption', caption);
  ch.emit('caption', caption);
});
onServerEvent(['layer_switched'], (ch, data) => {
  const track = ch._remoteTracks.get(data.trackId);
  if (track) track.currentLayer = data.layer;
  ch.emit('didSwitchLayer', data);
});
// The session moves to another node (it drains): reconnect now, as after a dropped
// connection; the resume says `moved` (docs/protocol.md, "Moving to another node").
onServerEvent(['reconnect'], (ch, data) => {
  ch._log('info', `server asked to reconnect (${data.reason})`);
  ch._signal?.close(1000, 'reconnect');
});

// MARK: - Users

export function userJoined(ch, data) {
  if (!data?.uid || data.uid === ch.uid) return;
  const user = userInfo(data);
  const existed = ch._users.has(user.uid);
  const tracks = user.tracks ?? [];
  const known = existed ? ch._users.get(user.uid) : null;
  ch._users.set(user.uid, { ...user, tracks: known ? known.tracks : [] });
  if (!existed) ch.emit('userDidJoin', ch._users.get(user.uid));
  for (const info of tracks) trackAdded(ch, info, user.uid);
}

export function userUpdated(ch, data) {
  const known = ch._users.get(data?.uid);
  if (!known) return;
  const user = userInfo(data);
  const updated = { ...known, nickname: user.nickname, custom: user.custom };
  ch._users.set(user.uid, updated);
  ch.emit('userDidUpdate', updated);
}

export function userLeft(ch, uid, reason) {
  const user = ch._users.get(uid);
  if (!user) return;
  for (const info of [...user.tracks]) trackRemoved(ch, info.id, uid);
  ch._users.delete(uid);
  ch._e2ee?.forget(uid);
  ch.emit('userDidLeave', uid, reason);
}

// MARK: - Tracks

/**
 * The user `uid`, or the hidden publisher `uid` (a server composite, in no user list:
 * docs/protocol.md, "Hidden participants"), made when `create` and absent.
 */
function publisher(ch, uid, create) {
  const user = ch._users.get(uid) ?? ch._hiddenPublishers.get(uid);
  if (user || !create || !uid || uid === ch._me?.uid) return user;
  const hidden = userInfo({ uid, joinedAt: 0, tracks: [] });
  ch._hiddenPublishers.set(uid, hidden);
  return hidden;
}

export function trackAdded(ch, data, uid) {
  if (!data?.id || ch._remoteTracks.has(data.id)) return;
  const user = publisher(ch, uid, true);
  if (!user) return;
  const info = trackInfo(data);
  if (!user.tracks.some((t) => t.id === info.id)) user.tracks.push(info);
  const track = new RemoteTrack(info, ch._adaptive);
  ch._remoteTracks.set(info.id, track);
  ch.emit('didAddTrack', user, track);
}

export function trackUpdated(ch, data, uid) {
  const user = publisher(ch, uid, false);
  if (!user || !data?.id) return;
  const info = trackInfo(data);
  const index = user.tracks.findIndex((t) => t.id === info.id);
  if (index >= 0) user.tracks[index] = info; else user.tracks.push(info);
  let track = ch._remoteTracks.get(info.id);
  if (track) track._update(info);
  else {
    track = new RemoteTrack(info, ch._adaptive);
    ch._remoteTracks.set(info.id, track);
  }
  ch.emit('didUpdateTrack', user, track);
}

export function trackRemoved(ch, trackId, uid) {
  const user = publisher(ch, uid, false);
  if (!user) return;
  const index = user.tracks.findIndex((t) => t.id === trackId);
  if (index < 0) return;
  user.tracks.splice(index, 1);
  if (!user.tracks.length && ch._hiddenPublishers.get(uid) === user) ch._hiddenPublishers.delete(uid);
  const track = ch._remoteTracks.get(trackId);
  ch._remoteTracks.delete(trackId);
  if (!track) return;
  ch._receiveMonitor.unsubscribed(track);
  track._end();
  ch.emit('didRemoveTrack', user, track);
}

/**
 * Dynacast: the encodings of `local` (a simulcast camera) whose layer nobody needs go inactive
 * (`RTCRtpSender.setParameters`, the encoder stops), the others active. A scalable (SVC) camera's
 * one encoding sends the spatial layers up to the best one needed and no more: its
 * `scalabilityMode` gets that many spatial layers (`L3T3_KEY` → `L2T3_KEY` → `L1T3`) and
 * `scaleResolutionDownBy` makes the top one the needed layer's size (so spatial layer 0 stays
 * camera_small); it goes inactive when no layer is needed. Changes run one at a time per track.
 */
function applyNeededLayers(ch, local, layers) {
  const sender = local.sender;
  if (!sender) return;
  const run = async () => {
    const parameters = sender.getParameters();
    if (!parameters.encodings?.length) return;
    let changed = false;
    const scalable = local.scalabilityMode && parameters.encodings.length === 1 && local.layers.length > 1;
    for (const encoding of parameters.encodings) {
      const desc = encoding.rid ? local.layers.find((l) => l.rid === encoding.rid)?.desc : null;
      const active = desc ? layers.includes(desc) : layers.length > 0;
      if (encoding.active !== active) { encoding.active = active; changed = true; }
    }
    const shape = scalable ? spatialShape(local, layers) : null;
    if (shape) {
      const [encoding] = parameters.encodings;
      if (encoding.scalabilityMode !== shape.scalabilityMode || (encoding.scaleResolutionDownBy ?? 1) !== shape.scale) {
        encoding.scalabilityMode = shape.scalabilityMode;
        encoding.scaleResolutionDownBy = shape.scale;
        try {
          await sender.setParameters(parameters);
        } catch (e) {
          // A browser that cannot change the mode while sending keeps its spatial layers as they are.
          ch._log('warn', `dynacast cannot send ${shape.scalabilityMode}: ${e.message}`);
          if (changed) {
            const again = sender.getParameters();
            for (const e of again.encodings) e.active = true;
            await sender.setParameters(again);
          }
        }
        changed = false;
      }
    }
    if (changed) await sender.setParameters(parameters);
    ch._log('debug', `dynacast ${local.id}: ${layers.join(',') || 'none'} needed`);
  };
  local._dynacast = (local._dynacast ?? Promise.resolve()).then(run, run).catch((e) => ch._log('warn', `dynacast failed: ${e.message}`));
}

/**
 * The shape of a scalable camera's one encoding when `layers` are needed: the spatial layers up to
 * the best needed one (`local.layers` best first: index 0 is the top spatial layer). Null when
 * none is needed (the encoding goes inactive instead).
 */
function spatialShape(local, layers) {
  const count = local.layers.length;
  const best = local.layers.findIndex((l) => layers.includes(l.desc));
  if (best < 0) return null;
  const spatial = count - best;
  const match = /^L(\d)T(\d)(.*)$/.exec(local.scalabilityMode);
  if (!match) return null;
  const scalabilityMode = spatial === Number(match[1]) ? local.scalabilityMode : `L${spatial}T${match[2]}${spatial > 1 ? match[3] : ''}`;
  return { scalabilityMode, scale: 2 ** best };
}
