// SMeeting web SDK: sub-meetings, breakout rooms (docs/meeting-protocol.md, "Sub-meetings"). The
// host (or a co-host) creates them, assigns members, opens them, broadcasts to them, visits them
// and closes them with a countdown. A member who moves leaves the meeting's SRTC channel for the
// sub-meeting's (its mic, camera and sharing close; it opens them again there), still in the
// meeting; `didMoveToSubMeeting` follows once the new channel is joined. Mixed into `SMeetingEngine`.

import { onMeetingEvent } from './engine-dispatch.js';

async function subMeetingCall(engine, type, data) {
  engine._inRoom();
  return (await engine._call(type, data)).subMeetings ?? [];
}

export const SubMeetingMethods = {
  /** The meeting's sub-meetings: `[{subMeetingId, title, mode, status, members, closesAt?}]`. */
  getSubMeetings() { return this._subMeetings; },

  /** The sub-meeting I am in; `null` in the main meeting (or outside a meeting). */
  get currentSubMeetingId() { return this.me?.subMeetingId ?? null; },

  /** Creates one sub-meeting per title (1–64 characters, 50 in all); resolves with the list. */
  adminCreateSubMeetings(titles) { return subMeetingCall(this, 'admin_create_sub_meetings', { titles: [...titles] }); },

  /** Assigns members to a sub-meeting (out of any other); in an open one they move at once. */
  adminAssignSubMeeting(subMeetingId, uids) { return subMeetingCall(this, 'admin_assign_sub_meeting', { subMeetingId, uids: [...uids] }); },

  /** Assigns every member not yet assigned, shuffled, to the sub-meetings with the fewest. */
  adminAssignSubMeetingsRandomly() { return subMeetingCall(this, 'admin_assign_sub_meetings_randomly'); },

  /** Opens the sub-meetings: assigned members move into them. */
  adminOpenSubMeetings() { return subMeetingCall(this, 'admin_open_sub_meetings'); },

  /** Sends a text to everyone in the meeting, every sub-meeting included (`didReceiveSubMeetingBroadcast`). */
  async adminBroadcastToSubMeetings(text) {
    this._inRoom();
    await this._call('admin_broadcast_sub_meetings', { text: String(text) });
  },

  /**
   * Goes into an open sub-meeting, or back to the main meeting with `null`; resolves once the new
   * channel is joined (`didMoveToSubMeeting` too).
   */
  async adminVisitSubMeeting(subMeetingId = null) {
    this._inRoom();
    const moved = await this._call('admin_visit_sub_meeting', subMeetingId ? { subMeetingId } : {});
    await moveTo(this, moved);
  },

  /** Asks the hosts and co-hosts for help from my sub-meeting (`wrongState` in the main meeting). */
  async requestSubMeetingHelp() {
    this._inRoom();
    await this._call('request_sub_meeting_help');
  },

  /** Closes the sub-meetings after `countdown` seconds (0–300): everyone returns to the main meeting. */
  adminCloseSubMeetings(countdown = 10) { return subMeetingCall(this, 'admin_close_sub_meetings', { countdown }); },
};

/** Switches my media to the channel of a `sub_meeting_moved` (or a visit's answer), then tells the listeners. */
async function moveTo(engine, moved) {
  await engine._switchChannel(moved.rtc);
  engine.emit('didMoveToSubMeeting', { subMeeting: moved.subMeeting ?? null });
}

/** The sub-meeting events. */
function subMeetingEvent(engine, type, data) {
  switch (type) {
    case 'sub_meetings_changed':
      engine._subMeetings = data.subMeetings ?? [];
      engine.emit('subMeetingsDidChange', { subMeetings: engine._subMeetings });
      break;
    case 'sub_meeting_moved':
      moveTo(engine, data).catch((error) => {
        engine._log('warn', `could not move to ${data.subMeeting?.subMeetingId ?? 'the main meeting'}: ${error.message}`);
        if (engine._room) engine._channelEnded(engine._channel, 'error');
      });
      break;
    case 'sub_meeting_broadcast':
      engine.emit('didReceiveSubMeetingBroadcast', { message: data.message });
      break;
    case 'sub_meeting_help':
      engine.emit('subMeetingHelpRequested', { uid: data.uid, subMeetingId: data.subMeetingId });
      break;
    case 'sub_meetings_closing':
      engine.emit('subMeetingsWillClose', { countdown: data.countdown, closesAt: data.closesAt });
      break;
    default:
      engine.emit('subMeetingsDidClose', {});
  }
}

onMeetingEvent('room', ['sub_meetings_changed', 'sub_meeting_moved', 'sub_meeting_broadcast', 'sub_meeting_help',
  'sub_meetings_closing', 'sub_meetings_closed'], subMeetingEvent);
