// SMeeting web SDK: meeting events (docs/meeting-protocol.md, Events). Each updates the snapshot,
// then tells the listeners, named as the Swift SDK's `SMeetingDelegate` methods.

import { ExitReason, ShareType, roomInfo, userInfo } from './models.js';

/** Applies `enter_room`'s answer: the room and everyone, me included. */
export function applyEnterSnapshot(engine, response) {
  engine._room = roomInfo(response.room);
  engine._users.clear();
  for (const u of response.users ?? []) engine._users.set(u.uid, userInfo(u));
  const me = userInfo(response.me);
  engine._users.set(me.uid, me);
}

/** Which `user_changed` field is told by which event. */
const USER_FIELD_EVENTS = {
  mic_state: 'userMicStateDidChange',
  camera_state: 'userCameraStateDidChange',
  share_state: 'userShareStateDidChange',
  role: 'userRoleDidChange',
  hand_raised: 'userHandDidChange',
  chat_disabled: 'userChatDisabledDidChange',
};

/** One meeting event while in a meeting. Unknown types are logged and skipped (newer servers). */
export function handleMeetingEvent(engine, type, data) {
  switch (type) {
    case 'user_entered': {
      const user = userInfo(data.user);
      engine._users.set(user.uid, user);
      engine.emit('userDidEnter', { user });
      break;
    }
    case 'user_exited': {
      const user = userInfo(data.user);
      engine._users.delete(user.uid);
      engine.emit('userDidExit', { user, reason: data.reason ?? ExitReason.exit });
      break;
    }
    case 'user_changed': userChanged(engine, userInfo(data.user), data.fields ?? [], data.by ?? null); break;
    case 'room_changed': roomChanged(engine, roomInfo(data.room), data.fields ?? [], data.by ?? null); break;
    case 'chat': engine.emit('didReceiveChatMessage', { message: data.message }); break;
    case 'admin_request':
      engine.emit(data.kind === 'camera' ? 'adminDidRequestOpenCamera' : 'adminDidRequestOpenMic', { adminUid: data.adminUid });
      break;
    case 'kicked':
      engine.emit('wasKicked', { adminUid: data.by ?? null });
      engine._tearDown(ExitReason.kicked);
      break;
    case 'room_ended':
      engine.emit('meetingDidEnd', { adminUid: data.by ?? null });
      engine._tearDown(ExitReason.ended);
      break;
    case 'disconnected':
      engine._tearDown(data.reason === ExitReason.duplicateLogin ? ExitReason.duplicateLogin : ExitReason.disconnected);
      break;
    default:
      engine._log('warn', `unknown meeting event ${type}`);
  }
}

function userChanged(engine, user, fields, by) {
  const old = engine._users.get(user.uid);
  engine._users.set(user.uid, user);
  if (user.uid === engine.currentUserId && old) {
    // A host (or mute all) closed my device: stop publishing and capturing it.
    if (old.micState === 'on' && user.micState === 'off') engine._stopLocal('mic');
    if (old.cameraState === 'on' && user.cameraState === 'off') engine._stopLocal('camera');
    if (old.shareState === ShareType.screen && user.shareState === 0) engine._stopLocal('screen');
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
}
