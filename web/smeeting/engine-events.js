// SMeeting web SDK: meeting events (docs/meeting-protocol.md, Events). Each updates the snapshot,
// then tells the listeners, named as the Swift SDK's `SMeetingDelegate` methods.

import { ExitReason, ShareType, roomInfo, userInfo } from './models.js';
import { onMeetingEvent } from './engine-dispatch.js';

/**
 * Applies `enter_room`'s answer (or `waiting_admitted`'s): the room and everyone, me included,
 * the waiting list (hosts and co-hosts) and the sub-meetings; or, told to wait, the waiting room.
 */
export function applyEnterSnapshot(engine, response) {
  if (response.waiting) {
    engine._waiting = roomInfo(response.room);
    return;
  }
  engine._waiting = null;
  engine._room = roomInfo(response.room);
  engine._users.clear();
  for (const u of response.users ?? []) engine._users.set(u.uid, userInfo(u));
  const me = userInfo(response.me);
  engine._users.set(me.uid, me);
  engine._waitingUsers.clear();
  for (const u of response.waitingUsers ?? []) engine._waitingUsers.set(u.uid, u);
  engine._subMeetings = response.subMeetings ?? [];
}

/** Which `user_changed` field is told by which event. */
const USER_FIELD_EVENTS = {
  mic_state: 'userMicStateDidChange',
  camera_state: 'userCameraStateDidChange',
  share_state: 'userShareStateDidChange',
  role: 'userRoleDidChange',
  hand_raised: 'userHandDidChange',
  chat_disabled: 'userChatDisabledDidChange',
  draw_disabled: 'userDrawDisabledDidChange',
  presenter: 'userPresenterDidChange',
};

// The meeting ends, whether I am in it or wait.
onMeetingEvent('any', ['room_ended'], (engine, type, data) => {
  engine.emit('meetingDidEnd', { adminUid: data.by ?? null });
  engine._tearDown(ExitReason.ended);
});
onMeetingEvent('any', ['disconnected'], (engine, type, data) => {
  engine._tearDown(data.reason === ExitReason.duplicateLogin ? ExitReason.duplicateLogin : ExitReason.disconnected);
});

onMeetingEvent('room', ['user_entered'], (engine, type, data) => {
  const user = userInfo(data.user);
  const known = engine._users.has(user.uid);
  engine._users.set(user.uid, user);
  // A member I still list enters again after its server node drained or died (the session
  // was lost with it and `rejoin` brought the member back): it never left.
  if (known) engine.emit('userInfoDidChange', { user, fields: [], by: null });
  else engine.emit('userDidEnter', { user });
  engine._e2eeMemberEntered(user.uid);
});
onMeetingEvent('room', ['user_exited'], (engine, type, data) => {
  const user = userInfo(data.user);
  engine._users.delete(user.uid);
  engine.emit('userDidExit', { user, reason: data.reason ?? ExitReason.exit });
  engine._e2eeMemberLeft(user.uid);
});
onMeetingEvent('room', ['user_changed'], (engine, type, data) => {
  userChanged(engine, userInfo(data.user), data.fields ?? [], data.by ?? null);
});
onMeetingEvent('room', ['room_changed'], (engine, type, data) => {
  roomChanged(engine, roomInfo(data.room), data.fields ?? [], data.by ?? null);
});
onMeetingEvent('room', ['chat'], (engine, type, data) => engine.emit('didReceiveChatMessage', { message: data.message }));
onMeetingEvent('room', ['admin_request'], (engine, type, data) => {
  engine.emit(data.kind === 'camera' ? 'adminDidRequestOpenCamera' : 'adminDidRequestOpenMic', { adminUid: data.adminUid });
});
onMeetingEvent('room', ['kicked'], (engine, type, data) => {
  engine.emit('wasKicked', { adminUid: data.by ?? null });
  engine._tearDown(ExitReason.kicked);
});

function userChanged(engine, user, fields, by) {
  const old = engine._users.get(user.uid);
  engine._users.set(user.uid, user);
  // A move closes my devices too, but in the channel I leave (the switch ends them there).
  if (user.uid === engine.currentUserId && old && old.subMeetingId === user.subMeetingId) {
    // A host (or mute all) closed my device: stop publishing and capturing it.
    if (old.micState === 'on' && user.micState === 'off') engine._stopLocal('mic');
    if (old.cameraState === 'on' && user.cameraState === 'off') engine._stopLocal('camera');
    if (old.shareState === ShareType.screen && user.shareState === 0) engine._stopLocal('screen');
    if (old.viewCapture && !user.viewCapture) engine._stopLocal('screen');
  }
  for (const field of fields) {
    const name = USER_FIELD_EVENTS[field];
    if (name) engine.emit(name, { user, by });
  }
  engine.emit('userInfoDidChange', { user, fields, by });
}

function roomChanged(engine, room, fields, by) {
  const old = engine._room;
  engine._room = room;
  if (fields.includes('sharing')) {
    if (old?.sharingUid && old.sharingUid !== room.sharingUid) engine.emit('roomShareDidStop', { uid: old.sharingUid });
    if (room.sharingUid && room.sharingUid !== old?.sharingUid) engine.emit('roomShareDidStart', { uid: room.sharingUid, shareType: room.shareType });
  }
  engine.emit('roomInfoDidChange', { room, fields, by });
  if (old && old.hostUid !== room.hostUid) engine._e2eeHostChanged();
}
