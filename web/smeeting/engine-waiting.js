// SMeeting web SDK: the waiting room (docs/meeting-protocol.md, "Waiting room"). A member who
// enters a meeting with one waits (`isInWaitingRoom`) until a host or co-host admits it (the SDK
// then joins the meeting's channel) or sends it away. Hosts and co-hosts see who waits and decide.
// Mixed into `SMeetingEngine`; the events are applied here.

import { ExitReason } from './models.js';
import { applyEnterSnapshot } from './engine-events.js';
import { onMeetingEvent } from './engine-dispatch.js';

export const WaitingMethods = {
  /** Who waits, longest first: `[{uid, nickname, since}]` (hosts and co-hosts; empty for members). */
  getWaitingList() {
    return [...this._waitingUsers.values()].sort((a, b) => (a.since - b.since) || (a.uid < b.uid ? -1 : 1));
  },

  /** Turns the meeting's waiting room on or off (off admits everyone waiting). Resolves with the `RoomInfo`. */
  adminSetWaitingRoom(enabled) {
    this._inRoom();
    return this._call('admin_set_waiting_room', { allow: Boolean(enabled) });
  },

  /** Lets one waiting member in (`apiError` 40401 when `uid` does not wait). */
  async adminAdmitWaiting(uid) {
    this._inRoom();
    await this._call('admin_admit', { uid });
  },

  /** Lets everyone waiting in, as far as the meeting holds them; resolves with who was admitted. */
  async adminAdmitAllWaiting() {
    this._inRoom();
    return (await this._call('admin_admit_all')).users ?? [];
  },

  /** Sends a waiting member away (it gets `wasRemovedFromWaitingRoom`). */
  async adminRemoveWaiting(uid) {
    this._inRoom();
    await this._call('admin_remove_waiting', { uid });
  },
};

/** `waiting_entered`, `waiting_left`, `waiting_list`: the waiting list of hosts and co-hosts. */
function waitingListEvent(engine, type, data) {
  switch (type) {
    case 'waiting_entered':
      engine._waitingUsers.set(data.user.uid, data.user);
      engine.emit('waitingUserDidEnter', { user: data.user });
      break;
    case 'waiting_left':
      engine._waitingUsers.delete(data.user.uid);
      engine.emit('waitingUserDidLeave', { user: data.user, reason: data.reason, by: data.by ?? null });
      break;
    default:
      engine._waitingUsers.clear();
      for (const u of data.users ?? []) engine._waitingUsers.set(u.uid, u);
      engine.emit('waitingListDidChange', { users: engine.getWaitingList() });
  }
}

/** What reaches me while I wait: admitted (with the meeting's snapshot) or sent away. */
function waitingRoomEvent(engine, type, data) {
  switch (type) {
    case 'waiting_admitted': {
      if (!data.rtc) return;
      applyEnterSnapshot(engine, data);
      engine._switchChannel(data.rtc).then(
        () => engine.emit('wasAdmittedFromWaitingRoom', { room: engine._room }),
        async (error) => {
          engine._log('warn', `could not join the meeting after admission: ${error.message}`);
          await engine._call('exit_room').catch(() => {});
          engine._tearDown(ExitReason.disconnected);
        });
      break;
    }
    case 'waiting_removed':
      engine.emit('wasRemovedFromWaitingRoom', { adminUid: data.by ?? null });
      engine._tearDown(ExitReason.kicked);
      break;
    default:
      engine._log('debug', `${type} while waiting: skipped`);
  }
}

onMeetingEvent('room', ['waiting_entered', 'waiting_left', 'waiting_list'], waitingListEvent);
// For members who wait: a member in the meeting skips them.
onMeetingEvent('room', ['waiting_admitted', 'waiting_removed'], () => {});
onMeetingEvent('waiting', ['waiting_admitted', 'waiting_removed'], waitingRoomEvent);
