// SMeeting web SDK: meeting events (docs/meeting-protocol.md, Events). Each updates the snapshot,
// then tells the listeners, named as the Swift SDK's `SMeetingDelegate` methods.

import { ExitReason, ShareType, roomInfo, userInfo } from './models.js';
import { waitingListEvent, waitingRoomEvent } from './engine-waiting.js';
import { subMeetingEvent } from './engine-sub-meetings.js';
import { signInEvent } from './engine-sign-in.js';

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

/** One meeting event in a meeting or its waiting room. Unknown types are logged and skipped (newer servers). */
export function handleMeetingEvent(engine, type, data) {
  switch (type) {
    case 'room_ended':
      engine.emit('meetingDidEnd', { adminUid: data.by ?? null });
      engine._tearDown(ExitReason.ended);
      return;
    case 'disconnected':
      engine._tearDown(data.reason === ExitReason.duplicateLogin ? ExitReason.duplicateLogin : ExitReason.disconnected);
      return;
    default:
      if (engine._waiting) waitingRoomEvent(engine, type, data);
      else roomEvent(engine, type, data);
  }
}

function roomEvent(engine, type, data) {
  switch (type) {
    case 'user_entered': {
      const user = userInfo(data.user);
      const known = engine._users.has(user.uid);
      engine._users.set(user.uid, user);
      // A member I still list enters again after its server node drained or died (the session
      // was lost with it and `rejoin` brought the member back): it never left.
      if (known) engine.emit('userInfoDidChange', { user, fields: [], by: null });
      else engine.emit('userDidEnter', { user });
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
    case 'waiting_entered': case 'waiting_left': case 'waiting_list':
      waitingListEvent(engine, type, data);
      break;
    case 'waiting_admitted': case 'waiting_removed':
      break; // for members who wait
    case 'sub_meetings_changed': case 'sub_meeting_moved': case 'sub_meeting_broadcast': case 'sub_meeting_help':
    case 'sub_meetings_closing': case 'sub_meetings_closed':
      subMeetingEvent(engine, type, data);
      break;
    case 'sign_in_started': case 'sign_in_progress': case 'sign_in_ended': case 'roll_call': case 'roll_call_result':
      signInEvent(engine, type, data);
      break;
    default:
      engine._log('warn', `unknown meeting event ${type}`);
  }
}

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
}
